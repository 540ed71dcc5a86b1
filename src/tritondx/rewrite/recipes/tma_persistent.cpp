// tma-persistent: the pointer-tensor operand loads of a wgmma K loop become tensor-descriptor
// (TMA) loads, and the kernel loops persistently over its tiles, when the launch finds the
// operands 16-byte aligned; otherwise the kernel runs as before, one program per tile.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tritondx/core/check.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/dot_operand.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"
#include "tritondx/task/task.h"

namespace tdx {
namespace {

using l0::KernelView;
using recipe_util::squash;
using dot_operand::Operand;

class TmaPersistentRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "tma-persistent"; }
  std::string_view description() const override {
    return "For l2-dot-operands-without-tma: the two `tl.load`s of pointer tiles that feed the tl.dot of a K "
           "loop (`a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak`, advanced by "
           "`BLOCK_K * stride_ak`, masked against the extents) become `a_desc.load([pid_m * BLOCK_M, k])` on "
           "tensor descriptors made once per program (`tl.make_tensor_descriptor(a_ptr, shape=[M, K], "
           "strides=[stride_am, stride_ak], block_shape=[BLOCK_M, BLOCK_K])`; TMA fills out-of-bounds "
           "elements with zeros, as the masks did), and the kernel body from `pid = tl.program_id(0)` on runs "
           "in `for pid in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0), flatten=USE_TMA)`. The "
           "launch passes the old grid's size as num_tiles and sets USE_TMA when both operands have a unit "
           "last stride, 16-byte aligned other strides and a 16-byte aligned address; then it registers "
           "Triton's allocator for the device-side descriptors and launches min(num_tiles, SM count) "
           "programs. On that path a K block passed as an integer grows to 128-byte rows (TMA's widest "
           "swizzle), with the num_stages that fit 188 KB of shared memory. Otherwise the loads stay as they "
           "were and the grid is unchanged (one tile per program). Refuses an output tile under 128x128 (one "
           "program per SM would leave the SM a few warps), anything but a 1-D grid given as a 1-tuple, a "
           "kernel with other program_id "
           "or num_programs calls or a return, operands that are not one masked load each of a pointer "
           "tile of that form, extents that are not kernel parameters, and names the rewrite would "
           "rebind. Also reads the matmul tutorial's form: indices wrapped past the extent (`% M`, read only by "
           "the pointer tile) stand for the row or column mask, and a K mask `offs_k < K - k * BLOCK_K`. On an "
           "autotuned kernel the grid stays the configs' lambda (wrapped with min(.., SM count)) and the kernel "
           "counts its tiles from the lambda's expression.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
  bool after_tuning() const override { return true; }
};

// One program per SM: a smaller tile leaves the SM a few warps where the grid of one tile per
// program kept several programs on it. On the H100, conv1x1_as_gemm's 64x64 tile at 4 warps ran
// 0.4537 ms persistent against 0.1956 ms (bench/results/logs/2026-12-05-h100-s12-call1).
constexpr long long kMinPersistentTile = 128 * 128;

// The launch's K block and stages, when the launch passes them as integers and the output tile's
// sides are known: on the TMA path they become block_k and stages (the launch text in edits()).
struct TmaConfig {
  long long block_k = 0, stages = 3, tile_m = 0, tile_n = 0;
  const PyNode* block_k_node = nullptr;
  const PyNode* stages_node = nullptr;  // nullptr: Triton's default of 3
};

// The shared memory the pipeline's stages may take: 188 KB of the 227 KB (232448 bytes) a Hopper
// block may use. The epilogue takes 32 KB more, where it converts the accumulator to the store's
// layout: compiled for sm_90 by Triton 3.6.0, a 128x256x64 fp16 tile took 32792 bytes beside 3
// stages (180248 in all) and 32800 beside 4 (229408). 4 stages would fit; 3 are what the
// hand-written TMA kernel used (tools/experiments/tma_matmul.py) and what was timed.
constexpr long long kPipelineSharedMemory = 188 * 1024;

// The output tile's sides: the launch's values of the operands' other (not K) block constexprs.
std::pair<std::optional<long long>, std::optional<long long>> output_tile(const KernelContext& ctx,
                                                                          const std::vector<Operand>& ops) {
  return {ctx.launch->int_arg(ops[0].vec[1 - ops[0].k_dim].block), ctx.launch->int_arg(ops[1].vec[1 - ops[1].k_dim].block)};
}

std::optional<TmaConfig> tma_config(const KernelContext& ctx, const launch_util::LaunchSite& site,
                                    const std::vector<Operand>& ops, const std::set<std::string>& launch_names) {
  if (launch_names.count("block_k") || launch_names.count("stages")) return std::nullopt;
  if (ops[0].k_dim != 1 && ops[1].k_dim != 1) return std::nullopt;  // no operand's rows run along K
  TmaConfig c;
  c.block_k_node = launch_util::passed_argument(ctx, *site.call, ops[0].vec[ops[0].k_dim].block);
  auto block_k = c.block_k_node ? int_constant(*c.block_k_node) : std::nullopt;
  auto [tile_m, tile_n] = output_tile(ctx, ops);
  if (!block_k || !tile_m || !tile_n || ops[1].vec[ops[1].k_dim].block != ops[0].vec[ops[0].k_dim].block)
    return std::nullopt;
  c.block_k = *block_k;
  c.tile_m = *tile_m;
  c.tile_n = *tile_n;
  c.stages_node = keyword(*site.call, "num_stages");
  if (c.stages_node) {
    auto stages = int_constant(*c.stages_node);
    if (!stages) return std::nullopt;
    c.stages = *stages;
  }
  return c;
}

Expected<std::vector<TextEdit>> TmaPersistentRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  const int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> {
    return fail(Stage::Rewrite, std::move(why), line);
  };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  // Under @triton.autotune/@triton.heuristics the configs size the tiles: the grid is a lambda of
  // them, and the kernel counts its tiles itself from that lambda's expression.
  const bool wrapped = launch_util::refuse_wrapped(ctx, line).has_value();
  KernelView view(ctx);
  const std::string tl = launch_util::tl_prefix(ctx);

  // The linear program id, the only program id of the kernel, and no early exit.
  auto pids = view.calls({"tl.program_id"});
  if (pids.size() != 1 || !view.calls({"tl.num_programs"}).empty())
    return refuse("the kernel must read tl.program_id(0) once and not tl.num_programs");
  const PyNode* pid_stmt = PyModule::enclosing_statement(*pids[0]);
  if (!pid_stmt || pid_stmt->parent != ctx.function || recipe_util::program_id_axis(*pids[0]) != 0 ||
      pid_stmt->type != "Assign" || recipe_util::assigned_name(*pid_stmt).empty() ||
      pid_stmt->child("value") != pids[0])
    return refuse("tl.program_id(0) is not assigned to a name at the kernel's top level");
  const std::string pid = recipe_util::assigned_name(*pid_stmt);
  bool early_exit = false, multiline_string = false;
  PyModule::walk(*ctx.function, [&](const PyNode& n) {
    early_exit |= n.type == "Return";
    multiline_string |= n.type == "Constant" && n.fields.value("value", nlohmann::json()).is_string() &&
                        n.line != n.end_line && n.line > pid_stmt->line;
  });
  if (early_exit) return refuse("the kernel returns early: inside a loop over the tiles that would end the loop");
  if (multiline_string) return refuse("a multi-line string after the program id cannot be re-indented");

  // The dot of the finding's line, its K loop, and one masked load per operand.
  auto dots = recipe_util::kernel_calls_on_line(ctx, {"tl.dot"}, line);
  if (dots.size() != 1) return refuse(fmt::format("expected one tl.dot on line {}", line));
  const PyNode* loop = dots[0]->parent;
  while (loop && loop->type != "For") loop = loop->parent;
  if (!loop || loop->parent != ctx.function || !loop->child("target") || loop->child("target")->type != "Name")
    return refuse("the dot is not in a top-level `for` loop of the kernel");
  const std::string k = loop->child("target")->str_field("id");
  const PyNode* iter = loop->child("iter");
  if (!iter || iter->type != "Call" ||
      (call_name(*iter) != "range" && normalize_triton_name(call_name(*iter)) != "tl.range"))
    return refuse("the K loop does not iterate over range(...)");
  auto iter_args = iter->children_in("args");

  std::vector<Operand> ops(2);
  for (int i = 0; i < 2; ++i) {
    Operand& op = ops[i];
    const PyNode* arg = argument(*dots[0], i);
    if (!arg || arg->type != "Name") return refuse(fmt::format("dot operand {} is not a name", i));
    op.target = arg->str_field("id");
    const PyNode* load = nullptr;
    for (const PyNode* s : loop->children_in("body")) {
      const PyNode* value = nullptr;
      if (s->type == "Assign" && recipe_util::assigned_name(*s) == op.target) value = s->child("value");
      else if (s->type == "If") value = dot_operand::flag_split_load(view, *s, op.target);
      if (!value) continue;
      if (op.load_stmt) return refuse(fmt::format("{} is assigned twice in the K loop", op.target));
      op.load_stmt = s;
      load = value;
    }
    if (!load || load->type != "Call" || normalize_triton_name(call_name(*load)) != "tl.load")
      return refuse(fmt::format("{} is not the value of one tl.load in the K loop", op.target));
    if (!stmt_util::alone_on_lines(ctx, *op.load_stmt))
      return refuse(fmt::format("the load of {} shares its line", op.target));
    const PyNode* ptrs = KernelView::pointer_arg(*load);
    if (!ptrs || ptrs->type != "Name")
      return refuse(fmt::format("the load of {} is not of a named pointer tile", op.target));
    TDX_CHECK(dot_operand::parse_pointer_tile(ctx, view, ptrs->str_field("id"), *loop, op, line));

    // The advance `ptrs += BLOCK * stride` names the K dimension; its index must start at 0.
    std::string advance_block;
    for (const PyNode* s : loop->children_in("body")) {
      const PyNode* t = s->child("target");
      if (s->type != "AugAssign" || !recipe_util::is_name(t, ptrs->str_field("id"))) continue;
      const PyNode* v = s->child("value");
      if (s->str_field("op") != "Add" || !v || v->type != "BinOp" || v->str_field("op") != "Mult")
        return refuse(fmt::format("{} is advanced by something other than `BLOCK * stride`", ptrs->str_field("id")));
      for (int d = 0; d < 2; ++d)
        for (auto [x, y] : {std::pair{v->child("left"), v->child("right")}, std::pair{v->child("right"), v->child("left")}})
          if (recipe_util::is_name(y, op.stride[d]) && op.k_dim < 0) {
            op.k_dim = d;
            advance_block = recipe_util::text(ctx, *x);
          }
    }
    if (op.k_dim < 0)
      return refuse(fmt::format("{} is not advanced along one of its strides in the K loop", ptrs->str_field("id")));
    if (op.vec[op.k_dim].start != "0" || squash(op.vec[op.k_dim].block) != squash(advance_block))
      return refuse(fmt::format("the K index of {} is not tl.arange(0, {})", op.target, advance_block));

    // Where the K loop is at iteration `k`: range(0, E, BLOCK) -> k; range(E) or range(0, E) -> k * BLOCK.
    std::string k_pos;
    if (iter_args.size() == 3 && int_constant(*iter_args[0]) == 0 &&
        squash(recipe_util::text(ctx, *iter_args[2])) == squash(advance_block))
      k_pos = k;
    else if (iter_args.size() == 1 || (iter_args.size() == 2 && int_constant(*iter_args[0]) == 0))
      k_pos = fmt::format("{} * {}", k, advance_block);
    else
      return refuse("the K loop is not range(0, K, BLOCK_K) or range(n)");

    const PyNode* mask = KernelView::mask_arg(*load);
    if (!mask) return refuse(fmt::format("the load of {} has no mask to take the extents from", op.target));
    TDX_CHECK(dot_operand::parse_mask(ctx, view, *mask, k_pos, op, line));
    if (const PyNode* other = KernelView::other_arg(*load); other && number_constant(*other) != 0.0)
      return refuse(fmt::format("the load of {} fills masked elements with something other than 0", op.target));

    for (int d = 0; d < 2; ++d) op.offset[d] = d == op.k_dim ? k_pos : op.vec[d].start;
    if (view.binds(op.target + "_desc")) return refuse(fmt::format("the kernel already binds {}_desc", op.target));
  }
  // A flag's `if` that loads the operands becomes the `else` of `if USE_TMA:`, whose branch loads
  // only the operands: the `if` may assign nothing else.
  for (const auto& op : ops)
    if (op.load_stmt->type == "If")
      for (const char* arm : {"body", "orelse"})
        for (const PyNode* st : op.load_stmt->children_in(arm))
          if (std::string t = recipe_util::assigned_name(*st); t != ops[0].target && t != ops[1].target)
            return refuse(fmt::format("the `if` on line {} that loads {} also assigns {}", op.load_stmt->line, op.target, t));
  for (const std::string name : {"num_tiles", "USE_TMA"})
    if (view.binds(name)) return refuse(fmt::format("the kernel already binds {}", name));
  if (auto [tile_m, tile_n] = output_tile(ctx, ops); tile_m && tile_n && *tile_m * *tile_n < kMinPersistentTile)
    return refuse(fmt::format("the {}x{} output tile is small for one program per SM (a persistent grid); grow it to "
                              "at least {} elements first",
                              *tile_m, *tile_n, kMinPersistentTile));

  // The launch: a 1-D grid given as a 1-tuple, in a top-level statement of the launch function.
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* launch_stmt = PyModule::enclosing_statement(*site.call);
  if (!launch_stmt || launch_stmt->parent != site.enclosing)
    return refuse("the launch call is not a top-level statement of the launch function");
  const PyNode* grid = launch_util::grid_expression(site);
  std::string tiles;  // the tile count: in the launch, or (wrapped) in the kernel's terms
  if (wrapped) {
    const PyNode* body = grid && grid->type == "Lambda" ? grid->child("body") : nullptr;
    if (!body || body->type != "Tuple" || body->children_in("elts").size() != 1)
      return refuse("the kernel is autotuned and its grid is not a `lambda META: (...)` of one dimension");
    tiles = TDX_TRY(launch_util::lambda_grid_in_kernel_terms(ctx, site, 0, line));
  } else {
    if (!grid || grid->type != "Tuple" || grid->children_in("elts").size() != 1) return refuse("the grid is not a 1-tuple");
    tiles = site.grid->type == "Name" ? site.grid->str_field("id") + "[0]"
                                      : recipe_util::text(ctx, *grid->children_in("elts")[0]);
  }
  std::set<std::string> launch_names = PyModule::names_written(*site.enclosing);
  for (const std::string name : {"num_tiles", "launch_grid", "use_tma", "sms", "grid_tiles"})
    if (launch_names.count(name)) return refuse(fmt::format("the launch function already binds {}", name));
  std::string tensors[2];
  for (int i = 0; i < 2; ++i) {
    const PyNode* passed = launch_util::passed_argument(ctx, *site.call, ops[i].base);
    if (!passed || passed->type != "Name") return refuse(fmt::format("{} is not passed a plain name", ops[i].base));
    tensors[i] = passed->str_field("id");
  }
  if (ctx.task->source.find("import torch") == std::string::npos) return refuse("the module does not import torch");

  // An autotuned kernel's K block and stages are its configs', not the launch's.
  std::optional<TmaConfig> config = wrapped ? std::nullopt : tma_config(ctx, site, ops, launch_names);

  // The kernel: descriptors once per program, then the body from the program id on in the tile loop.
  std::vector<TextEdit> edits;
  edits.push_back(TDX_TRY(launch_util::append_params(
      ctx, fmt::format("{}USE_TMA: {}.constexpr", wrapped ? "" : "num_tiles, ", tl), line)));
  const std::string ind = indentation_of(ctx.task->source, pid_stmt->line);
  std::string text = wrapped ? fmt::format("{}num_tiles = {}\n", ind, tiles) : "";
  text += ind + "if USE_TMA:\n";
  for (const auto& op : ops)
    text += fmt::format("{}    {}_desc = {}.make_tensor_descriptor({}, shape=[{}, {}], strides=[{}, {}], "
                        "block_shape=[{}, {}])\n",
                        ind, op.target, tl, op.base, op.extent[0], op.extent[1], op.stride[0], op.stride[1],
                        op.vec[0].block, op.vec[1].block);
  text += fmt::format("{}for {} in {}.range({}.program_id(0), num_tiles, {}.num_programs(0), flatten=USE_TMA):\n", ind,
                      pid, tl, tl, tl);
  const auto lines = split_lines(ctx.task->source);
  for (int l = pid_stmt->line + 1; l <= ctx.function->end_line; ++l) {
    const std::string& src = lines[l - 1];
    // The operands loaded by the statement covering this line (both, when an even-shape flag's
    // `if` loads them together).
    std::vector<const Operand*> at;
    for (const auto& op : ops)
      if (l >= op.load_stmt->line && l <= op.load_stmt->end_line) at.push_back(&op);
    if (at.empty()) {
      text += src.find_first_not_of(" \t") == std::string::npos ? "\n" : "    " + src + "\n";
      continue;
    }
    if (l != at.front()->load_stmt->line) continue;
    const std::string li = "    " + indentation_of(ctx.task->source, l);
    text += li + "if USE_TMA:\n";
    for (const Operand* op : at)
      text += fmt::format("{0}    {1} = {1}_desc.load([{2}, {3}])\n", li, op->target, op->offset[0], op->offset[1]);
    text += li + "else:\n";
    for (int o = at.front()->load_stmt->line; o <= at.front()->load_stmt->end_line; ++o)
      text += "        " + lines[o - 1] + "\n";
  }
  edits.push_back(stmt_util::replace_lines(pid_stmt->line, ctx.function->end_line, text));

  // The launch: the tile count, the alignment check, the allocator and the persistent grid.
  const std::string li = indentation_of(ctx.task->source, launch_stmt->line);
  // A wrapped kernel's grid stays the lambda of its configs (named grid_tiles when written inline).
  const std::string grid_fn = site.grid->type == "Name" ? site.grid->str_field("id") : "grid_tiles";
  std::string launch_text;
  if (!wrapped)
    launch_text = fmt::format("{0}num_tiles = {1}\n{0}launch_grid = (num_tiles,)\n", li, tiles);
  else if (site.grid->type == "Name")
    launch_text = fmt::format("{0}launch_grid = {1}\n", li, grid_fn);
  else
    launch_text = fmt::format("{0}grid_tiles = {1}\n{0}launch_grid = grid_tiles\n", li, recipe_util::text(ctx, *site.grid));
  if (config) launch_text += fmt::format("{}block_k, stages = {}, {}\n", li, config->block_k, config->stages);
  launch_text += fmt::format(
      "{0}use_tma = all(t.stride(-1) == 1 and t.data_ptr() % 16 == 0 and\n"
      "{0}              all(s * t.element_size() % 16 == 0 for s in t.stride()[:-1]) for t in ({2}))\n"
      "{0}if use_tma:  # TMA descriptors made on the device need Triton's allocator\n"
      "{0}    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device={1}.device, "
      "dtype=torch.int8))\n"
      "{0}    sms = torch.cuda.get_device_properties({1}.device).multi_processor_count if {1}.is_cuda else 1\n"
      "{0}    launch_grid = {3}\n",
      li, tensors[0], tensors[0] + ", " + tensors[1],
      wrapped ? fmt::format("lambda META: (min({}(META)[0], sms),)", grid_fn) : "(min(num_tiles, sms),)");
  if (config) {
    std::string row_bytes;  // 128 // element size of each operand whose K axis is its unit-stride one
    for (int i = 0; i < 2; ++i)
      if (ops[i].k_dim == 1) row_bytes += fmt::format(", 128 // {}.element_size()", tensors[i]);
    launch_text += fmt::format(
        "{0}    # TMA's widest (128-byte) swizzle needs 128-byte rows in the K block; then as many stages as\n"
        "{0}    # fit in the shared memory a block may use, less the epilogue's\n"
        "{0}    block_k = max(block_k{1})\n"
        "{0}    stages = max(2, min(stages, {2} // (({3} * {4}.element_size() + {5} * {6}.element_size()) * block_k)))\n",
        li, row_bytes, kPipelineSharedMemory, config->tile_m, tensors[0], config->tile_n, tensors[1]);
  }
  edits.push_back(TextEdit::insert_lines(launch_stmt->line, launch_text));
  edits.push_back(TextEdit::replace(*site.grid, "launch_grid"));
  if (config) {
    edits.push_back(TextEdit::replace(*config->block_k_node, "block_k"));
    if (config->stages_node) edits.push_back(TextEdit::replace(*config->stages_node, "stages"));
  }
  if (wrapped) {
    edits.push_back(launch_util::set_keyword(*site.call, "USE_TMA", "use_tma"));
    return edits;
  }
  edits.push_back(launch_util::set_keyword(
      *site.call, "num_tiles",
      std::string("num_tiles, USE_TMA=use_tma") + (config && !config->stages_node ? ", num_stages=stages" : "")));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_tma_persistent_recipe() { return std::make_unique<TmaPersistentRecipe>(); }

}  // namespace tdx
