// reduce-then-scan: a blocked scan in the scan-then-propagate order (local scans written to the
// output, read back by a later kernel that adds the block totals) stops writing the local
// scans; the later kernel scans its block of the input again instead of reading them.
#include <fmt/format.h>

#include <algorithm>

#include "tritondx/source/kernel_view.h"
#include "tritondx/source/scan_propagate_match.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

class ReduceThenScanRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "reduce-then-scan"; }
  std::string_view description() const override {
    return "For a blocked prefix scan launched in the scan-then-propagate order (kernel A stores `tl.cumsum` of "
           "each loaded block into the output and the block totals elsewhere; a later launch of kernel B on the "
           "same output loads it back and stores it with the scanned totals added): A's store of the local scan is "
           "deleted, and B's load of the output becomes the same `tl.cumsum` of the same block of the input, read "
           "through a new pointer parameter that B's launch passes the input to. The output is written once "
           "instead of written, read and written again; the input is read twice. The values B stores are "
           "bit-identical: the same scan of the same loaded block. Refuses unless the match holds exactly: one "
           "scan store (a statement of its own, not the only one of its block), one launch of A, B the first later "
           "launch that passes the output (nothing reads or reassigns the output or the input in between), B "
           "loading the output once at offsets and under a mask that resolve to A's, the same grid and the same "
           "launch values for the parameters those read, one element type for input and output, and kernels "
           "without @triton.autotune / @triton.heuristics. Proposed by l0-scan-then-propagate.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

bool is_constant(const PyNode* n) {
  if (!n) return false;
  if (n->type == "UnaryOp") n = n->child("operand");
  return n && n->type == "Constant";
}

Expected<std::vector<TextEdit>> ReduceThenScanRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task || !ctx.ast) return refuse("no captured launch");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  std::string why;
  auto m = l0::match_scan_then_propagate(view, why);
  if (!m) return refuse(why);
  const std::string kernel_b = m->kernel_b->str_field("name");
  if (const KernelInfo* info = ctx.task->kernel(kernel_b);
      !info || (info->wrappers.is_array() && !info->wrappers.empty()))
    return refuse(fmt::format("{} is wrapped in @triton.autotune / @triton.heuristics", kernel_b));
  if (!stmt_util::alone_on_lines(ctx, *m->scan_store))
    return refuse(fmt::format("line {}: the scan's store shares its lines with other code", m->scan_store->line));
  if (m->scan_store->parent && m->scan_store->parent->children_in(m->scan_store->field).size() < 2)
    return refuse(fmt::format("line {}: the scan's store is the only statement of its block", m->scan_store->line));
  const PyNode& load = *m->reread_load;
  if (load.line != load.end_line) return refuse(fmt::format("line {}: the output's load spans lines", load.line));

  // Extra arguments of the scan (axis=0, reverse=...) go with it; they must not read A's names.
  std::vector<std::string> rest;
  for (const auto& c : m->cumsum->children) {
    if (c.field == "args" && c.index == 0) continue;
    if (c.field == "args" && is_constant(&c)) rest.push_back(recipe_util::text(ctx, c));
    else if (c.field == "keywords" && is_constant(c.child("value"))) rest.push_back(recipe_util::text(ctx, c));
    else if (c.field == "args" || c.field == "keywords")
      return refuse(fmt::format("line {}: tl.cumsum takes an argument that is not a constant", m->cumsum->line));
  }

  // B's new pointer parameter: A's name for the input unless B uses it.
  KernelContext ctx_b = l0::second_kernel_context(ctx, *m);
  KernelView view_b(ctx_b);
  auto params_b = stmt_util::kernel_params(ctx_b);
  auto taken = [&](const std::string& n) {
    return view_b.binds(n) || std::find(params_b.begin(), params_b.end(), n) != params_b.end();
  };
  std::string name = m->input_param;
  for (int i = 2; taken(name); ++i) name = fmt::format("{}_{}", m->input_param, i);

  // The new load: B's own load of the output with the output pointer replaced by the input's,
  // and A's `other` when B gives none (masked lanes then hold what A scanned).
  std::string text = recipe_util::text(ctx, load);
  const PyNode* base = KernelView::pointer_arg(load)->child("left");
  size_t at = static_cast<size_t>(base->col - load.col);
  std::string new_load = text.substr(0, at) + name + text.substr(at + m->reread_param.size());
  const PyNode* other_a = KernelView::other_arg(*m->input_load);
  const PyNode* other_b = KernelView::other_arg(load);
  if (other_b && (!other_a || recipe_util::squash(recipe_util::text(ctx, *other_a)) !=
                                  recipe_util::squash(recipe_util::text(ctx, *other_b))))
    return refuse(fmt::format("line {}: the output's load has another `other` than the scanned load", load.line));
  if (!other_b && other_a) {
    if (!is_constant(other_a))
      return refuse(fmt::format("line {}: the scanned load's `other` is not a constant", m->input_load->line));
    new_load = new_load.substr(0, new_load.rfind(')')) + ", other=" + recipe_util::text(ctx, *other_a) + ")";
  }
  std::string tl = launch_util::tl_prefix(ctx);
  std::string scan = fmt::format("{}.cumsum({}", tl, new_load);
  for (const auto& r : rest) scan += ", " + r;
  scan += ")";

  std::vector<TextEdit> edits;
  edits.push_back(stmt_util::replace_lines(m->scan_store->line, m->scan_store->end_line, ""));
  edits.push_back(TextEdit::replace(load, scan));
  edits.push_back(TDX_TRY(launch_util::append_params(ctx_b, name, line)));
  edits.push_back(launch_util::set_keyword(*m->launch_b, name, m->input_arg));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_reduce_then_scan_recipe() { return std::make_unique<ReduceThenScanRecipe>(); }

}  // namespace tdx
