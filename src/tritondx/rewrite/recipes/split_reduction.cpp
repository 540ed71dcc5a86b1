// split-reduction: a loop that sums into an accumulator, run by too few programs, is split over
// a second grid axis; each split stores its partial result and a second kernel adds them.
#include <fmt/format.h>

#include <map>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

constexpr const char* kSplit = "SPLIT";
constexpr const char* kStride = "split_stride";
constexpr const char* kPartials = "split_partials";
constexpr int kCombineBlock = 1024;

class SplitReductionRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "split-reduction"; }
  std::string_view description() const override {
    return "For a kernel launched with fewer programs than SMs whose top-level loop `for i in range(0, END, "
           "STEP)` only adds into accumulators (`acc += expr`, acc from tl.zeros) and whose one store, after "
           "the loop, writes a value linear in them (tl.sum, a product or quotient by a loop-independent "
           "value): the grid gains an axis of SPLIT programs, split s runs the iterations in its chunk "
           "(`range(lo, hi, STEP)`, chunks a multiple of STEP) and stores its partial result into row s of "
           "an fp32 buffer split_partials [SPLIT, out.numel()], and a second generated kernel adds the SPLIT "
           "rows in a fixed order into the output (deterministic, unlike atomics). Refuses loops with "
           "stores, other loop-carried values or a start other than 0; a store before the loop or several "
           "stores; a value that adds a loop-independent term (it would be added SPLIT times); a 2-D grid; "
           "an output that is not a fresh fp32 torch.empty/zeros tensor of the launch function. Proposed "
           "by l0-serial-loop-small-grid.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

enum class Dep { Const, Linear, Bad };

// How `expr` depends on the accumulators: not at all, linearly (sums, products and quotients by
// values that do not depend on them), or otherwise. Names defined after the loop are followed; a
// value left by the loop's last iteration (other than an accumulator) differs between splits.
Dep dependence(const KernelView& view, const PyNode& expr, const std::set<std::string>& accs, const PyNode& loop) {
  const int loop_end = loop.end_line;
  if (expr.type == "Name") {
    std::string id = expr.str_field("id");
    if (accs.count(id)) return Dep::Linear;
    const l0::Definition* d = view.definition(expr);
    if (d && d->stmt && (d->stmt == &loop || PyModule::inside(*d->stmt, loop))) return Dep::Bad;
    if (d && d->line > loop_end && d->value) return dependence(view, *d->value, accs, loop);
    return Dep::Const;
  }
  if (expr.type == "Constant") return Dep::Const;
  if (expr.type == "UnaryOp" && expr.fields.value("op", "") == "USub")
    return dependence(view, *expr.child("operand"), accs, loop);
  if (expr.type == "BinOp") {
    Dep l = dependence(view, *expr.child("left"), accs, loop);
    Dep r = dependence(view, *expr.child("right"), accs, loop);
    if (l == Dep::Bad || r == Dep::Bad) return Dep::Bad;
    if (l == Dep::Const && r == Dep::Const) return Dep::Const;
    const std::string op = expr.fields.value("op", "");
    if (op == "Add" || op == "Sub") return l == Dep::Linear && r == Dep::Linear ? Dep::Linear : Dep::Bad;
    if (op == "Mult") return l == Dep::Linear && r == Dep::Linear ? Dep::Bad : Dep::Linear;
    if (op == "Div") return r == Dep::Const ? Dep::Linear : Dep::Bad;
    return Dep::Bad;
  }
  if (expr.type == "Call" && normalize_triton_name(call_name(expr)) == "tl.sum" && argument(expr, 0)) {
    Dep inner = dependence(view, *argument(expr, 0), accs, loop);
    if (inner != Dep::Linear) return inner;
    return keyword(expr, "keep_dims") || argument(expr, 2) ? Dep::Bad : Dep::Linear;
  }
  bool any = false;
  PyModule::walk(expr, [&](const PyNode& n) {
    if (n.type == "Name" && dependence(view, n, accs, loop) != Dep::Const) any = true;
  });
  return any ? Dep::Bad : Dep::Const;
}

Expected<std::vector<TextEdit>> SplitReductionRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.proposal.params.value("loop_line", in.finding.loc.line);
  const long long split = in.proposal.params.value("split", 0LL);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task || !ctx.ast) return refuse("no captured launch");
  if (split < 2) return refuse("no split count of at least 2 proposed");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  const std::string tl = launch_util::tl_prefix(ctx);
  const PyNode& fn = view.function();

  // The loop: top level, `for v in range(0, END, STEP)` or tl.range with the same three.
  const PyNode* loop = nullptr;
  for (const PyNode* s : fn.children_in("body"))
    if (s->type == "For" && s->line == line) loop = s;
  if (!loop) return refuse(fmt::format("no top-level for loop on line {}", line));
  const PyNode* iter = loop->child("iter");
  const std::string range_name = iter && iter->type == "Call" ? normalize_triton_name(call_name(*iter)) : "";
  if (range_name != "range" && range_name != "tl.range") return refuse("the loop does not iterate over range()");
  const PyNode* start = argument(*iter, 0);
  const PyNode* end = argument(*iter, 1);
  const PyNode* step = argument(*iter, 2);
  if (!start || !end || !step || argument(*iter, 3) || int_constant(*start) != 0)
    return refuse("the loop is not `range(0, END, STEP)`");

  // Loop-carried values: every name the loop writes that is defined before it must be an
  // accumulator `acc = tl.zeros(...)` updated once, by `acc += expr` or `acc = acc + expr`.
  std::set<std::string> accs;
  std::string failure;
  std::string loop_var = loop->child("target") && loop->child("target")->type == "Name"
                             ? loop->child("target")->str_field("id") : "";
  for (const std::string& name : PyModule::names_written(*loop)) {
    if (name == loop_var) continue;
    bool before = false;
    for (const auto& d : view.definitions(name))
      if (d.line < loop->line) {
        before = true;
        if (!d.value || d.value->type != "Call" || normalize_triton_name(call_name(*d.value)) != "tl.zeros")
          failure = fmt::format("`{}` is carried by the loop but does not start as tl.zeros", name);
      }
    if (!before) continue;
    int updates = 0;
    PyModule::walk(*loop, [&](const PyNode& n) {
      if (n.type == "AugAssign" && n.child("target") && n.child("target")->str_field("id") == name) {
        ++updates;
        if (n.fields.value("op", "") != "Add" || !n.child("value") || PyModule::names_read(*n.child("value")).count(name))
          failure = fmt::format("line {}: `{}` is updated by other than `{} += <expression without it>`", n.line,
                                name, name);
      }
      if (n.type == "Assign" && recipe_util::assigned_name(n) == name) {
        ++updates;
        const PyNode* v = n.child("value");
        bool sum = v && v->type == "BinOp" && v->fields.value("op", "") == "Add" && v->child("left") &&
                   v->child("left")->type == "Name" && v->child("left")->str_field("id") == name &&
                   !PyModule::names_read(*v->child("right")).count(name);
        if (!sum) failure = fmt::format("line {}: `{}` is updated by other than `{} = {} + ...`", n.line, name, name, name);
      }
    });
    if (updates != 1) failure = fmt::format("`{}` is updated {} times in the loop", name, updates);
    accs.insert(name);
  }
  if (!failure.empty()) return refuse(failure);
  if (accs.empty()) return refuse("the loop carries no accumulator");
  if (stmt_util::contains_call(*loop, {"tl.store"}))
    return refuse("the loop stores: its iterations are not only a reduction");
  if (stmt_util::contains_call(fn, {"tl.atomic_add", "tl.atomic_max", "tl.atomic_min", "tl.atomic_xchg", "tl.atomic_cas",
                                    "tl.atomic_and", "tl.atomic_or", "tl.atomic_xor"}))
    return refuse("the kernel updates memory atomically");

  // The one store, after the loop, of a value linear in the accumulators.
  auto stores = view.stores();
  if (stores.size() != 1 || stores[0]->line <= loop->end_line)
    return refuse("the kernel does not have exactly one store, after the loop");
  const PyNode& store = *stores[0];
  const PyNode* pointer = KernelView::pointer_arg(store);
  const PyNode* value = argument(store, 1) ? argument(store, 1) : keyword(store, "value");
  if (!pointer || !value) return refuse("the store has no pointer or value argument");
  Dep d = dependence(view, *value, accs, *loop);
  if (d != Dep::Linear)
    return refuse("the stored value is not linear in the accumulators (a sum of partial results would differ)");
  if (dependence(view, *pointer, accs, *loop) != Dep::Const)
    return refuse("the store's address depends on the accumulators");
  if (const PyNode* m = KernelView::mask_arg(store); m && dependence(view, *m, accs, *loop) != Dep::Const)
    return refuse("the store's mask depends on the accumulators");
  const std::string out_param = view.root_pointer(*pointer);
  if (out_param.empty()) return refuse("the store's pointer parameter is not known");
  if (view.pointee_type(out_param) != "fp32") return refuse("the output is not fp32 (partials would lose precision)");

  // Axis 1 of the grid must be free.
  bool axis1 = false;
  PyModule::walk(fn, [&](const PyNode& n) {
    if (n.type != "Call") return;
    std::string name = normalize_triton_name(call_name(n));
    if ((name == "tl.program_id" || name == "tl.num_programs") && recipe_util::program_id_axis(n) != 0) axis1 = true;
  });
  if (axis1) return refuse("the kernel reads a grid axis other than 0");

  // The launch: a one-dimensional tuple grid and a fresh output tensor.
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* grid = launch_util::grid_expression(site);
  if (!grid || grid->type != "Tuple" || grid->children_in("elts").size() != 1)
    return refuse("the grid is not a one-dimensional tuple written at the launch");
  const PyNode* out_arg = launch_util::passed_argument(ctx, *site.call, out_param);
  if (!out_arg || out_arg->type != "Name") return refuse(fmt::format("{} is not passed a plain name", out_param));
  const std::string out = out_arg->str_field("id");
  const PyNode* out_def = launch_util::single_assignment(*site.enclosing, out);
  const PyNode* alloc = out_def ? out_def->child("value") : nullptr;
  std::string alloc_name = alloc && alloc->type == "Call" ? call_name(*alloc) : "";
  if (alloc_name != "torch.empty" && alloc_name != "torch.zeros" && alloc_name != "torch.empty_like" &&
      alloc_name != "torch.zeros_like")
    return refuse(fmt::format("`{}` is not a fresh tensor made in the launch function (torch.empty/zeros)", out));
  const PyNode* launch_stmt = PyModule::enclosing_statement(*site.call);
  if (!launch_stmt || launch_stmt->parent != site.enclosing)
    return refuse("the launch call is not a statement of the launch function");
  if (!stmt_util::imports_triton(ctx)) return refuse("the module does not import triton");
  for (const char* name : {kSplit, kStride, "split_chunk", "split_start"})
    if (view.binds(name)) return refuse(fmt::format("the kernel already uses the name {}", name));
  const std::string combine = ctx.kernel_name() + "_split_sum";
  std::string module_text = ctx.task->source;
  if (module_text.find(combine) != std::string::npos || module_text.find(kPartials) != std::string::npos)
    return refuse(fmt::format("the module already uses {} or {}", combine, kPartials));

  std::vector<TextEdit> edits;
  const std::string end_text = recipe_util::text(ctx, *end), step_text = recipe_util::text(ctx, *step);
  const std::string ind = indentation_of(ctx.task->source, loop->line);
  edits.push_back(TextEdit::insert_lines(
      loop->line,
      fmt::format("{0}split_chunk = {1}.cdiv({1}.cdiv({2}, {3}), {4}) * {4}\n"
                  "{0}split_start = {1}.program_id(1) * split_chunk\n",
                  ind, tl, end_text, kSplit, step_text)));
  edits.push_back(TextEdit::replace(*start, "split_start"));
  edits.push_back(TextEdit::replace(*end, fmt::format("{}.minimum(split_start + split_chunk, {})", tl, end_text)));
  const std::string ptr_text = recipe_util::text(ctx, *pointer);
  edits.push_back(TextEdit::replace(*pointer, fmt::format("{} + {}.program_id(1) * {}", ptr_text, tl, kStride)));
  edits.push_back(TDX_TRY(launch_util::append_params(ctx, fmt::format("{}, {}: {}.constexpr", kStride, kSplit, tl), line)));

  // The combine kernel, after the kernel.
  const PyNode* kernel_def = ctx.function;
  edits.push_back(TextEdit::insert_lines(
      kernel_def->end_line + 1,
      fmt::format("\n\n@triton.jit\n"
                  "def {0}(partials_ptr, out_ptr, n, {1}: {2}.constexpr, BLOCK: {2}.constexpr):\n"
                  "    # Adds the {1} rows of partial results in a fixed order (deterministic).\n"
                  "    offs = {2}.program_id(0) * BLOCK + {2}.arange(0, BLOCK)\n"
                  "    mask = offs < n\n"
                  "    total = {2}.load(partials_ptr + offs, mask=mask, other=0.0)\n"
                  "    for s in {2}.static_range(1, {1}):\n"
                  "        total += {2}.load(partials_ptr + s * n + offs, mask=mask, other=0.0)\n"
                  "    {2}.store(out_ptr + offs, total, mask=mask)\n",
                  combine, kSplit, tl)));

  // The launch: partials in, the combine after, a second grid axis.
  const PyNode* dim0 = grid->children_in("elts")[0];
  edits.push_back(TextEdit::replace(*grid, fmt::format("({}, {})", recipe_util::text(ctx, *dim0), split)));
  edits.push_back(TextEdit::replace(*out_arg, kPartials));
  edits.push_back(launch_util::set_keyword(*site.call, kStride, fmt::format("{}.numel(), {}={}", out, kSplit, split)));
  const std::string lind = indentation_of(ctx.task->source, launch_stmt->line);
  edits.push_back(TextEdit::insert_lines(
      launch_stmt->line,
      fmt::format("{0}{1} = torch.empty(({2}, {3}.numel()), device={3}.device, dtype=torch.float32)\n", lind, kPartials,
                  split, out)));
  edits.push_back(TextEdit::insert_lines(
      launch_stmt->end_line + 1,
      fmt::format("{0}{1}[(triton.cdiv({2}.numel(), {3}),)]({4}, {2}, {2}.numel(), {5}={6}, BLOCK={3})\n", lind,
                  combine, out, kCombineBlock, kPartials, kSplit, split)));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_split_reduction_recipe() { return std::make_unique<SplitReductionRecipe>(); }

}  // namespace tdx
