// peel-causal-diagonal: a causal key loop split at the program's first row, the blocks before it
// without the mask.
#include <fmt/format.h>

#include "tritondx/source/causal_loop.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class PeelCausalDiagonalRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "peel-causal-diagonal"; }
  std::string_view description() const override {
    return "Splits a causal key loop that stops at the diagonal, `for start in range(lo, hi, step)` with "
           "`s = tl.where(rows[:, None] >= cols[None, :], s, -inf)`, `rows = off + tl.arange(0, BM)` and "
           "`cols = start + tl.arange(0, step)`, in two: a copy of the loop over `range(lo, "
           "tl.minimum(hi', off), step)` without the tl.where (hi' is hi without its `off + BM` term when hi "
           "is tl.minimum(x, off + BM), since off < off + BM), placed before it, and the loop itself from "
           "`off`. With lo and off multiples of step, every block of the copy ends before `off`, the "
           "program's first row, so the mask would have kept all its scores; the two loops visit the "
           "blocks of the original in order, so the loop-carried values (running max, sum, accumulator) "
           "pass from one to the other unchanged. Proposed by l0-causal-mask-every-block; the same split "
           "as the causal stages of Triton's fused-attention tutorial.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> PeelCausalDiagonalRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.proposal.params.value("loop_line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.task || !ctx.launch) return refuse("no kernel source or captured launch");
  l0::KernelView view(ctx);
  const PyNode* loop = recipe_util::kernel_loop_on_line(ctx, line);
  if (!loop) return refuse(fmt::format("no for loop on line {}", line));
  auto m = l0::match_causal_loop(view, *loop);
  if (!m) return refuse("the loop has no causal mask `s = tl.where(rows[:, None] >= cols[None, :], s, -inf)`");
  auto args = loop->child("iter")->children_in("args");
  if (!l0::reads_offset(view, *m, *args[1]))
    return refuse("the loop does not stop at the diagonal yet (causal-loop-bound first)");
  if (l0::reads_offset(view, *m, *args[0])) return refuse("the loop already starts at the program's first row");
  if (std::string why = l0::diagonal_split_refusal(view, *m); !why.empty()) return refuse(why);
  if (args[1]->line != loop->line || args[1]->end_line != loop->line)
    return refuse("the loop's bound is not on the `for` line");
  const PyNode* where_stmt = m->where->parent;
  const auto& lines = ctx.task->lines;
  const std::string& first = lines[static_cast<size_t>(where_stmt->line - 1)];
  const std::string& last = lines[static_cast<size_t>(where_stmt->end_line - 1)];
  size_t after = last.find_first_not_of(" \t", static_cast<size_t>(std::max(0, where_stmt->end_col - 1)));
  if (first.find_first_not_of(" \t") + 1 != static_cast<size_t>(where_stmt->col) ||
      (after != std::string::npos && last[after] != '#'))
    return refuse("the mask's statement shares its lines with other code");

  // hi' = the bound without its diagonal term, when hi is tl.minimum(x, off + BM).
  const std::string tl = launch_util::tl_prefix(ctx);
  std::string hi = recipe_util::text(ctx, *args[1]);
  std::string first_hi = fmt::format("{}.minimum({}, {})", tl, hi, m->offset);
  if (args[1]->type == "Call" && normalize_triton_name(call_name(*args[1])) == "tl.minimum") {
    const PyNode* a = argument(*args[1], 0);
    const PyNode* b = argument(*args[1], 1);
    for (auto [x, diag] : {std::pair{a, b}, {b, a}})
      if (x && diag && recipe_util::squash(recipe_util::text(ctx, *diag)) == recipe_util::squash(m->bound))
        first_hi = fmt::format("{}.minimum({}, {})", tl, recipe_util::text(ctx, *x), m->offset);
  }

  // The copy: the header with the new bound, the body without the mask's statement (or with
  // `s = <kept>` when the where also transformed the scores).
  std::string header = lines[static_cast<size_t>(loop->line - 1)];
  header.replace(static_cast<size_t>(args[1]->col - 1), static_cast<size_t>(args[1]->end_col - args[1]->col), first_hi);
  std::string indent = indentation_of(ctx.task->source, where_stmt->line);
  std::string kept = recipe_util::text(ctx, *argument(*m->where, 1));
  const std::string loop_indent = indentation_of(ctx.task->source, loop->line);
  std::string copy =
      fmt::format("{}# key blocks before the program's first row: the causal mask keeps them whole\n", loop_indent) +
      header + "\n";
  for (int l = loop->line + 1; l <= loop->end_line; ++l) {
    if (l == where_stmt->line && kept != m->scores) copy += fmt::format("{}{} = {}\n", indent, m->scores, kept);
    if (l >= where_stmt->line && l <= where_stmt->end_line) continue;
    copy += lines[static_cast<size_t>(l - 1)] + "\n";
  }
  copy += fmt::format("\n{}# key blocks crossing the diagonal, masked\n", loop_indent);
  return std::vector<TextEdit>{TextEdit::insert_lines(loop->line, copy), TextEdit::replace(*args[0], m->offset)};
}

}  // namespace

std::unique_ptr<Recipe> make_peel_causal_diagonal_recipe() { return std::make_unique<PeelCausalDiagonalRecipe>(); }

}  // namespace tdx
