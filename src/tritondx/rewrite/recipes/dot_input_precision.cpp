// dot-input-precision: set input_precision= on the tl.dot a finding points at.
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

// rtol below which plain tf32 (~1e-3 relative error) is too coarse (l0-fp32-dot's default).
constexpr double kTf32MinRtol = 1e-3;

class DotInputPrecisionRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "dot-input-precision"; }
  std::string_view description() const override {
    return "Sets the input precision of the tl.dot a finding points at: adds input_precision=\"...\", "
           "replaces an existing input_precision= value, or replaces the deprecated allow_tf32= keyword. "
           "The precision is the proposal's (l0-fp32-dot weighs the task's tolerance: tf32, or tf32x3 "
           "when rtol < 1e-3); for proposals that only say \"tf32\" (l2-dot-not-wgmma, "
           "l3-mma-v3-precondition) a tolerance tighter than 1e-3 gets tf32x3 instead, which still runs "
           "on tensor cores.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> DotInputPrecisionRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.proposal.params.value("line", in.finding.loc.line);
  std::string precision = in.proposal.params.value("input_precision", "tf32");
  if (precision != "tf32" && precision != "tf32x3" && precision != "ieee" && precision != "bf16x3")
    return fail(Stage::Rewrite, fmt::format("unknown input precision \"{}\"", precision), line);
  if (!in.proposal.params.contains("from") && precision == "tf32" && ctx.tolerance.is_object() &&
      ctx.tolerance.value("rtol", 1.0) < kTf32MinRtol)
    precision = "tf32x3";
  auto dots = recipe_util::kernel_calls_on_line(ctx, {"tl.dot"}, line);
  if (dots.empty()) return fail(Stage::Rewrite, "no tl.dot call on the finding's line", line);
  if (dots.size() > 1) return fail(Stage::Rewrite, "several tl.dot calls on the finding's line", line);
  const PyNode& dot = *dots.front();
  std::string value = fmt::format("\"{}\"", precision);
  if (const PyNode* p = keyword(dot, "input_precision")) {
    if (recipe_util::text(ctx, *p) == value) return fail(Stage::Rewrite, "the dot already has that precision", line);
    return std::vector<TextEdit>{TextEdit::replace(*p, value)};
  }
  for (const PyNode* kw : dot.children_in("keywords"))
    if (kw->str_field("arg") == "allow_tf32")
      return std::vector<TextEdit>{TextEdit::replace(*kw, "input_precision=" + value)};
  const PyNode* last = last_argument(dot);
  if (!last) return fail(Stage::Rewrite, "tl.dot without arguments", line);
  return std::vector<TextEdit>{TextEdit::insert_after(*last, ", input_precision=" + value)};
}

}  // namespace

std::unique_ptr<Recipe> make_dot_input_precision_recipe() { return std::make_unique<DotInputPrecisionRecipe>(); }

}  // namespace tdx
