#include "tritondx/rewrite/recipes/program_tile.h"

#include <fmt/format.h>

#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/statement_util.h"
#include "tritondx/source/retiling.h"

namespace tdx::program_tile {

std::optional<Diagnostic> refuse_non_elementwise(const l0::KernelView& view, int line) {
  if (auto blocker = l0::retiling_blocker(view.function()))
    return fail(Stage::Rewrite, l0::describe(*blocker), line).error();
  return std::nullopt;
}

Expected<std::vector<TextEdit>> edits(const KernelContext& ctx, const Request& r, int line) {
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  l0::KernelView view(ctx);
  const std::string tl = launch_util::tl_prefix(ctx);
  int axis_uses = 0;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type != "Call") return;
    std::string name = normalize_triton_name(call_name(n));
    if ((name == "tl.program_id" || name == "tl.num_programs") && recipe_util::program_id_axis(n) == r.axis)
      ++axis_uses;
  });
  if (axis_uses != 1) return refuse(fmt::format("axis {} of the grid is read more than once in the kernel", r.axis));

  // The parameter that receives the grid's size along that axis bounds the new indices.
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* grid = launch_util::grid_expression(site);
  if (grid && grid->type != "Tuple") grid = nullptr;
  auto dims = grid ? grid->children_in("elts") : std::vector<const PyNode*>{};
  if (static_cast<int>(dims.size()) <= r.axis) return refuse("the grid is not a tuple written at the launch");
  const PyNode* extent = dims[static_cast<size_t>(r.axis)];
  const std::string extent_text = recipe_util::text(ctx, *extent);
  std::string bound;
  for (const auto& p : stmt_util::kernel_params(ctx)) {
    const PyNode* a = stmt_util::launch_argument(ctx, *site.call, p);
    if (a && recipe_util::text(ctx, *a) == extent_text) {
      if (!bound.empty()) return refuse(fmt::format("both {} and {} receive `{}`", bound, p, extent_text));
      bound = p;
    }
  }
  const bool add_bound = bound.empty();
  if (add_bound && !r.may_add_bound)
    return refuse(fmt::format("no kernel parameter receives `{}`, the grid's size along axis {}: nothing bounds "
                              "the new indices", extent_text, r.axis));
  if (add_bound) bound = kRowBound;
  if (!stmt_util::imports_triton(ctx)) return refuse("the module does not import triton (for triton.cdiv)");
  for (const char* name : {kTileRows, add_bound ? kRowBound : ""}) {
    if (!*name) continue;
    if (view.binds(name))
      return refuse(fmt::format("the kernel already uses the name {}", name));
  }

  std::vector<TextEdit> out;
  out.push_back(TextEdit::replace(
      *r.row_value, fmt::format("{0}.program_id({1}) * {2} + {0}.arange(0, {2})[:, None]", tl, r.axis, kTileRows)));
  // Every load and store stays inside the old grid along the new dimension.
  std::string guard = fmt::format("({} < {})", r.row, bound);
  std::string failure;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type != "Call" || !failure.empty()) return;
    std::string name = normalize_triton_name(call_name(n));
    if (name != "tl.load" && name != "tl.store") return;
    if (argument(n, name == "tl.load" ? 1 : 2)) {
      failure = fmt::format("line {}: a positional mask", n.line);
      return;
    }
    const PyNode* mask = keyword(n, "mask");
    if (!mask) {
      out.push_back(launch_util::set_keyword(n, "mask", fmt::format("{} < {}", r.row, bound)));
      return;
    }
    std::string m = recipe_util::text(ctx, *mask);
    out.push_back(TextEdit::replace(*mask, fmt::format("{} & {}", mask->type == "Name" ? m : "(" + m + ")", guard)));
  });
  if (!failure.empty()) return refuse(failure);
  // A reshape of a row-derived value keeps its rows apart: the tile's leading dimension goes in
  // front of the written shape. (tl.split and tl.join work on the last dimension, unaffected.)
  for (const PyNode* call : view.calls({"tl.reshape"})) {
    const PyNode* input = argument(*call, 0) ? argument(*call, 0) : keyword(*call, "input");
    const PyNode* shape = argument(*call, 1) ? argument(*call, 1) : keyword(*call, "shape");
    const PyNode* reorder = argument(*call, 2) ? argument(*call, 2) : keyword(*call, "can_reorder");
    if (!input || !view.flows_from(*input, [&](const PyNode& x) { return &x == r.row_value; })) continue;
    if (reorder && !(reorder->type == "Constant" && reorder->fields.value("value", nlohmann::json()) == false))
      return refuse(fmt::format("line {}: a reshape that may reorder elements would mix the tile's rows", call->line));
    if (!shape || (shape->type != "Tuple" && shape->type != "List"))
      return refuse(fmt::format("line {}: the reshape's shape is not written as a tuple", call->line));
    std::string dims;
    for (const PyNode* e : shape->children_in("elts")) dims += ", " + recipe_util::text(ctx, *e);
    out.push_back(TextEdit::replace(*shape, fmt::format("({}{})", kTileRows, dims)));
  }

  std::string params = fmt::format("{}: {}.constexpr", kTileRows, tl);
  if (add_bound) params = fmt::format("{}, {}", kRowBound, params);
  out.push_back(TDX_TRY(launch_util::append_params(ctx, params, line)));
  // One edit for both keywords: two appends at the same place would have no defined order.
  if (add_bound)
    out.push_back(launch_util::set_keyword(*site.call, kRowBound,
                                           fmt::format("{}, {}={}", extent_text, kTileRows, r.tile)));
  else
    out.push_back(launch_util::set_keyword(*site.call, kTileRows, std::to_string(r.tile)));
  out.push_back(TextEdit::replace(*extent, fmt::format("triton.cdiv({}, {})", extent_text, r.tile)));
  return out;
}

}  // namespace tdx::program_tile
