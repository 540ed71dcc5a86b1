// split-row: a long row held by one program (l0-long-row-per-program) is split across a second
// grid axis of column blocks.
#include <fmt/format.h>

#include "tritondx/core/text.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"
#include "tritondx/source/long_row.h"

namespace tdx {
namespace {

using l0::KernelView;

// The column block and warps each program gets: unsloth's GEGLU kernel computes the same tanh GELU
// over the same 8192 x 14336 bf16 data in 1024-element blocks at 4 warps in 0.2338 ms, at its
// roofline, where Liger's whole 16384-wide rows at 16 warps take 0.2877 ms (H100, results/corpus).
// The launch grid then retunes both.
constexpr long long kColumnBlock = 1024;
constexpr int kWarps = 4;
constexpr const char* kBlockVar = "row_block";

class SplitRowRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "split-row"; }
  std::string_view description() const override {
    return "For a straight-line elementwise kernel whose every program takes one whole row in its one "
           "`tl.arange(0, BLOCK)`, masked by the row's length (l0-long-row-per-program): the arange becomes "
           "`tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)`, the grid (a tuple, or a lambda returning one) gains "
           "a second dimension `triton.cdiv(n, row_block)` with n what the launch passes for the mask's bound, and "
           "the launch passes BLOCK = row_block, a new local `row_block = min(1024, <what it passed>)`, at "
           "num_warps=4. Refuses kernels that loop, branch, reduce, read another program id or tl.num_programs, "
           "use BLOCK beyond the arange, or access memory unmasked.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> SplitRowRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  auto row = l0::long_row(view);
  if (!row) return refuse(row.error());
  if (row->block_value <= kColumnBlock)
    return refuse(fmt::format("the block is {} elements already, not more than {}", row->block_value, kColumnBlock));
  if (!stmt_util::imports_triton(ctx)) return refuse("the module does not import triton (for triton.cdiv)");
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* statement = site.call->parent;
  if (!statement || statement->type != "Expr")
    return refuse(fmt::format("line {}: the launch call is not a statement of its own", site.call->line));
  if (launch_util::single_assignment(*site.enclosing, kBlockVar) || PyModule::names_read(*site.enclosing).count(kBlockVar))
    return refuse(fmt::format("the launch function already uses the name {}", kBlockVar));
  const PyNode* block_arg = launch_util::passed_argument(ctx, *site.call, row->block);
  const PyNode* extent_arg = launch_util::passed_argument(ctx, *site.call, row->extent);
  if (!block_arg) return refuse(fmt::format("the launch call does not pass {}", row->block));
  if (!extent_arg) return refuse(fmt::format("the launch call does not pass {}", row->extent));

  // The grid: a tuple, a name assigned one, or a lambda returning one; it gains the column blocks.
  const PyNode* grid = launch_util::grid_expression(site);
  if (grid && grid->type == "Lambda") grid = grid->child("body");
  if (!grid || grid->type != "Tuple" || grid->children_in("elts").size() != 1)
    return refuse("the grid is not a one-dimensional tuple (or a lambda returning one)");
  const std::string extent = recipe_util::text(ctx, *extent_arg);
  const std::string old_block = recipe_util::text(ctx, *block_arg);
  const std::string tl = launch_util::tl_prefix(ctx);

  std::vector<TextEdit> edits;
  edits.push_back(TextEdit::replace(*row->arange, fmt::format("({}.program_id(1) * {} + {})", tl, row->block,
                                                              recipe_util::text(ctx, *row->arange))));
  edits.push_back(TextEdit::insert_lines(
      statement->line, fmt::format("{}{} = min({}, {})\n", indentation_of(ctx.task->source, statement->line), kBlockVar,
                                   kColumnBlock, old_block)));
  edits.push_back(TextEdit::replace(*block_arg, kBlockVar));
  edits.push_back(TextEdit::replace(
      *grid, fmt::format("({}, triton.cdiv({}, {}))", recipe_util::text(ctx, *grid->children_in("elts").front()),
                         extent, kBlockVar)));
  edits.push_back(launch_util::set_keyword(*site.call, "num_warps", std::to_string(kWarps)));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_split_row_recipe() { return std::make_unique<SplitRowRecipe>(); }

}  // namespace tdx
