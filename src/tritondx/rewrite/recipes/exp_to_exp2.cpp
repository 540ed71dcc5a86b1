// exp-to-exp2: tl.exp(affine) -> tl.exp2 with log2(e) folded into the affine argument.
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class ExpToExp2Recipe final : public Recipe {
 public:
  std::string_view id() const override { return "exp-to-exp2"; }
  std::string_view description() const override {
    return "Rewrites tl.exp(a - b), tl.exp(a + b), tl.exp(a * s) and tl.exp(a / s) as tl.exp2 with "
           "log2(e) folded into both terms (or into the scale), defining LOG2E = tl.constexpr(...) "
           "at module level. Triton lowers tl.exp to a multiply by log2(e) followed by ex2.approx, so "
           "folding the constant into an operation the kernel already does removes one multiply per "
           "element. Proposed by l0-exp-instead-of-exp2, whose evidence gives the affine form.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> ExpToExp2Recipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto calls = recipe_util::kernel_calls_on_line(ctx, {"tl.exp", "tl.math.exp"}, line);
  if (calls.empty()) return fail(Stage::Rewrite, "no tl.exp call on the finding's line", line);
  std::vector<TextEdit> edits;
  for (const PyNode* call : calls) {
    const PyNode* arg = argument(*call, 0);
    if (!arg) continue;
    // The rule quotes the affine form it saw; when the argument is that form inline, fold
    // log2(e) into its terms, otherwise scale the argument as a whole.
    std::string replacement;
    if (arg->type == "BinOp") {
      std::string op = arg->fields.value("op", "");
      std::string l = recipe_util::text(ctx, *arg->child("left"));
      std::string r = recipe_util::text(ctx, *arg->child("right"));
      if (op == "Sub" || op == "Add")
        replacement = fmt::format("tl.exp2({} * LOG2E {} {} * LOG2E)", l, op == "Sub" ? "-" : "+", r);
      else if (op == "Mult")
        replacement = fmt::format("tl.exp2({} * ({} * LOG2E))", l, r);
      else if (op == "Div")
        replacement = fmt::format("tl.exp2({} * (LOG2E / {}))", l, r);
    }
    if (replacement.empty()) replacement = fmt::format("tl.exp2(({}) * LOG2E)", recipe_util::text(ctx, *arg));
    edits.push_back(TextEdit::replace(*call, replacement));
  }
  if (edits.empty()) return fail(Stage::Rewrite, "tl.exp without an argument", line);
  if (auto def = recipe_util::define_module_constexpr(ctx, "LOG2E", "1.4426950408889634")) edits.push_back(*def);
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_exp_to_exp2_recipe() { return std::make_unique<ExpToExp2Recipe>(); }

}  // namespace tdx
