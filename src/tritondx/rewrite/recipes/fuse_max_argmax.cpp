// fuse-max-argmax: tl.max(x, axis) and tl.argmax(x, axis) become one tl.max(..., return_indices=True).
#include <fmt/format.h>

#include "tritondx/source/max_argmax.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;
using l0::ReductionPair;

class FuseMaxArgmaxRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "fuse-max-argmax"; }
  std::string_view description() const override {
    return "Replaces tl.max(x, axis) and tl.argmax(x, axis) of the same tensor (l0-separate-max-argmax) "
           "by one `m, i = tl.max(x, axis, return_indices=True)` at the earlier of the two statements "
           "(argmax's tie_break_left carried over as return_indices_tie_break_left; tl.min/tl.argmin "
           "alike). A statement that is just `name = tl.argmax(...)` is folded into the tuple and "
           "deleted when its name is not touched in between; a reduction inside a larger expression "
           "is replaced by a new name bound by the fused statement.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// `name = call` with one Name target: the name, else "".
std::string whole_assignment_target(const PyNode& stmt, const PyNode& call) {
  if (stmt.type != "Assign" || call.parent != &stmt || call.field != "value") return "";
  return recipe_util::assigned_name(stmt);
}

bool before(int line, int col, int l2, int c2) { return std::tie(line, col) < std::tie(l2, c2); }

Expected<std::vector<TextEdit>> FuseMaxArgmaxRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  int value_line = in.proposal.params.value("value_line", 0), index_line = in.proposal.params.value("index_line", 0);
  KernelView view(ctx);
  const ReductionPair* pair = nullptr;
  auto pairs = l0::separate_value_index_reductions(view);
  for (const auto& p : pairs)
    if (p.value_call->line == value_line && p.index_call->line == index_line) pair = &p;
  if (!pair) return refuse(fmt::format("no reduction on line {} pairs with an index reduction on line {}", value_line, index_line));

  const PyNode& vcall = *pair->value_call;
  const PyNode& icall = *pair->index_call;
  bool value_first = before(pair->value_stmt->line, pair->value_stmt->col, pair->index_stmt->line, pair->index_stmt->col);
  const PyNode& earlier = value_first ? *pair->value_stmt : *pair->index_stmt;
  const PyNode& later = value_first ? *pair->index_stmt : *pair->value_stmt;
  const PyNode& later_call = value_first ? icall : vcall;

  std::string vname = whole_assignment_target(*pair->value_stmt, vcall);
  std::string iname = whole_assignment_target(*pair->index_stmt, icall);
  // The later statement can be folded into the earlier one when its name is neither read nor
  // assigned between them (it would now be bound earlier).
  bool fold_later = false;
  if (std::string t = value_first ? iname : vname; !t.empty() && t != (value_first ? vname : iname) &&
                                                    stmt_util::alone_on_lines(ctx, later)) {
    fold_later = true;
    for (const PyNode* u : view.uses(t))
      if (before(earlier.line, earlier.col, u->line, u->col) && before(u->line, u->col, later.line, later.col)) fold_later = false;
    for (const auto& d : view.definitions(t))
      if (d.stmt != &later && before(earlier.line, earlier.col, d.line, d.col) && before(d.line, d.col, later.line, later.col))
        fold_later = false;
  }
  if (!fold_later) (value_first ? iname : vname).clear();
  bool earlier_whole = !(value_first ? vname : iname).empty();

  const PyNode* operand = l0::reduced_operand(vcall);
  std::string base = operand->type == "Name" ? operand->str_field("id") : "reduced";
  if (vname.empty()) vname = view.fresh_name(fmt::format("{}_{}", base, pair->reduction));
  if (iname.empty()) iname = view.fresh_name(fmt::format("{}_arg{}", base, pair->reduction));

  std::string axis = argument(vcall, 1) ? recipe_util::text(ctx, *argument(vcall, 1))
                                        : "axis=" + recipe_util::text(ctx, *keyword(vcall, "axis"));
  std::string fused = fmt::format("{}({}, {}", recipe_util::text(ctx, *vcall.child("func")),
                                  recipe_util::text(ctx, *operand), axis);
  if (const PyNode* k = keyword(vcall, "keep_dims")) fused += ", keep_dims=" + recipe_util::text(ctx, *k);
  fused += ", return_indices=True";
  if (const PyNode* t = keyword(icall, "tie_break_left")) fused += ", return_indices_tie_break_left=" + recipe_util::text(ctx, *t);
  fused += ")";
  std::string statement = fmt::format("{}, {} = {}", vname, iname, fused);

  std::vector<TextEdit> edits;
  if (earlier_whole) {
    edits.push_back(TextEdit::replace(earlier, statement));
  } else {
    edits.push_back(TextEdit::insert_lines(earlier.line, indentation_of(ctx.task->source, earlier.line) + statement + "\n"));
    edits.push_back(TextEdit::replace(value_first ? vcall : icall, value_first ? vname : iname));
  }
  if (fold_later)
    edits.push_back(stmt_util::replace_lines(later.line, later.end_line, ""));
  else
    edits.push_back(TextEdit::replace(later_call, value_first ? iname : vname));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_fuse_max_argmax_recipe() { return std::make_unique<FuseMaxArgmaxRecipe>(); }

}  // namespace tdx
