// autotune-configs: wrap the kernel in @triton.autotune with a few configs around the diagnosed
// block size and num_warps, and let the launch's grid read the chosen block from meta.
#include <fmt/format.h>

#include <algorithm>

#include "tritondx/source/block_index.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

class AutotuneConfigsRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "autotune-configs"; }
  std::string_view description() const override {
    return "Wraps the kernel in @triton.autotune with a small config set derived from the diagnosis: the "
           "block constexpr at the proposed value, half and twice it, each with num_warps 4 and 8 (the "
           "proposed block with 4 warps first), keyed on the kernel's size arguments (the bounds of its "
           "masks). The launch call stops passing the block (and num_warps/num_stages, which the configs "
           "carry), and a grid dimension written triton.cdiv(n, BLOCK) becomes a lambda reading "
           "meta[\"BLOCK\"]. Proposed by l0-tiny-block next to grow-block. Refuses already wrapped kernels, "
           "a block the launch computes or passes positionally, and grids it cannot rewrite.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> AutotuneConfigsRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  const auto& p = in.proposal.params;
  int line = in.finding.loc.line;
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  std::string name = p.value("constexpr", "");
  long long block = p.value("block", 0LL), from = p.value("from", 0LL);
  if (name.empty() || block < 16 || (block & (block - 1)) != 0)
    return fail(Stage::Rewrite, "the proposal names no block constexpr and power-of-two size", line);
  KernelView view(ctx);
  if (view.signature(name) != "constexpr")
    return fail(Stage::Rewrite, fmt::format("`{}` is not a tl.constexpr parameter", name), line);
  // Configs change the block for shapes the capture never saw: every access indexed by it must be masked.
  if (auto unmasked = launch_util::unmasked_block_access(view, name))
    return fail(Stage::Rewrite,
                fmt::format("the access at line {} is indexed by {} without a mask: other block sizes would "
                            "read past the data",
                            *unmasked, name),
                *unmasked);
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* value = keyword(*site.call, name);
  if (!value || int_constant(*value) != from)
    return fail(Stage::Rewrite, fmt::format("the launch does not pass {}={} as a keyword literal", name, from),
                site.call->line);

  // The grid: a tuple (inline or assigned once); the dimensions counting blocks must be
  // triton.cdiv(n, FROM), which become triton.cdiv(n, meta["NAME"]).
  const PyNode* grid = launch_util::grid_expression(site);
  if (!grid || (grid->type != "Tuple" && grid->type != "List"))
    return fail(Stage::Rewrite, "the grid is not a tuple the recipe can turn into a lambda", site.call->line);
  std::set<int> axes = launch_util::scaled_axes(view, name);
  if (axes.count(-1)) return fail(Stage::Rewrite, "tl.program_id with a non-constant axis", line);
  auto dims = grid->children_in("elts");
  std::vector<std::string> dim_text;
  for (size_t i = 0; i < dims.size(); ++i) {
    const PyNode* d = dims[i];
    if (!axes.count(static_cast<int>(i))) {
      dim_text.push_back(recipe_util::text(ctx, *d));
      continue;
    }
    const PyNode* divisor = d->type == "Call" && call_name(*d) == "triton.cdiv" ? argument(*d, 1) : nullptr;
    if (!divisor || int_constant(*divisor) != from)
      return fail(Stage::Rewrite,
                  fmt::format("grid dimension `{}` is not triton.cdiv(n, {})", recipe_util::text(ctx, *d), from), d->line);
    dim_text.push_back(fmt::format("triton.cdiv({}, meta[\"{}\"])", recipe_util::text(ctx, *argument(*d, 0)), name));
  }
  for (int a : axes)
    if (a >= static_cast<int>(dims.size())) return fail(Stage::Rewrite, "the grid has too few dimensions", line);
  bool uses_meta = !axes.empty();
  std::string tuple;
  for (const auto& t : dim_text) tuple += (tuple.empty() ? "" : ", ") + t;
  if (dim_text.size() == 1) tuple += ",";

  // Key: the size arguments the masks compare against (else every integer argument).
  const KernelInfo* info = ctx.task->kernel(ctx.kernel_name());
  std::set<std::string> limits;
  for (const auto& access : l0::masked_accesses(view))
    if (access.bound.limit && access.bound.limit->type == "Name" && !view.definition(*access.bound.limit))
      limits.insert(access.bound.limit->str_field("id"));
  std::vector<std::string> key;
  for (const auto& prm : info ? info->params : std::vector<KernelParam>{}) {
    std::string sig = view.signature(prm.name);
    bool integer = sig == "i32" || sig == "i64" || sig == "u32" || sig == "u64";
    if (integer && (limits.empty() || limits.count(prm.name))) key.push_back(fmt::format("\"{}\"", prm.name));
  }
  if (key.empty()) return fail(Stage::Rewrite, "no integer size argument to key the autotuner on", line);

  // Configs: the proposal first (with 4 warps), then half and twice the block, 4 and 8 warps.
  std::string stages;
  if (const PyNode* s = keyword(*site.call, "num_stages")) {
    auto v = int_constant(*s);
    if (!v) return fail(Stage::Rewrite, "the launch computes num_stages", site.call->line);
    stages = fmt::format(", num_stages={}", *v);
  }
  std::vector<long long> blocks = {block};
  if (block / 2 >= 16) blocks.push_back(block / 2);
  if (block * 2 <= 8192) blocks.push_back(block * 2);
  std::string configs;
  for (long long b : blocks)
    for (int w : {4, 8})
      configs += fmt::format("        triton.Config({{\"{}\": {}}}, num_warps={}{}),\n", name, b, w, stages);
  std::string keys;
  for (const auto& k : key) keys += (keys.empty() ? "" : ", ") + k;
  std::string decorator =
      fmt::format("@triton.autotune(\n    configs=[\n{}    ],\n    key=[{}],\n)\n", configs, keys);

  std::vector<TextEdit> edits;
  int first_decorator = ctx.function->line;
  for (const PyNode* d : ctx.function->children_in("decorator_list")) first_decorator = std::min(first_decorator, d->line);
  if (!indentation_of(ctx.task->source, first_decorator).empty())
    return fail(Stage::Rewrite, "the kernel is not defined at module level", line);
  edits.push_back(TextEdit::insert_lines(first_decorator, decorator));
  for (const char* k : {"num_warps", "num_stages"})
    if (auto e = launch_util::remove_keyword(*site.call, k)) edits.push_back(*e);
  edits.push_back(*launch_util::remove_keyword(*site.call, name));
  if (uses_meta) edits.push_back(TextEdit::replace(*grid, fmt::format("lambda meta: ({})", tuple)));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_autotune_configs_recipe() { return std::make_unique<AutotuneConfigsRecipe>(); }

}  // namespace tdx
