// reciprocal-division: `tl.math.div_rn(a, s)` with a divisor s of fewer elements than the quotient
// becomes one correctly rounded reciprocal of s and, per element, a multiply and two FMAs.
#include <fmt/format.h>

#include <functional>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

class ReciprocalDivisionRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "reciprocal-division"; }
  std::string_view description() const override {
    return "Replaces `tl.math.div_rn(a, s)`, where the divisor s has fewer elements than the quotient (a scalar, "
           "or a row/column broadcast), by `r = tl.math.div_rn(1.0, s)` once per statement and, per element, "
           "`q = a * r; q = tl.fma(tl.fma(-q, s, a), r, q)`. With r the correctly rounded reciprocal and q within "
           "one ulp of a/s, the remainder a - q*s is exact in an FMA and the corrected q is the correctly rounded "
           "quotient (Markstein's theorem), so the result equals div_rn's as long as nothing overflows or "
           "underflows (s finite, non-zero and within 2^-126..2^126; a zero quotient may lose its sign). Each "
           "element loses the reciprocal (MUFU.RCP, a 16-per-clock pipe), its refinement and the slow-path check "
           "of div.rn.f32. Proposed by l2-narrow-pipe-bound.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

long long elements(const std::vector<long long>& shape) {
  long long n = 1;
  for (long long d : shape) n *= d;
  return n;
}

Expected<std::vector<TextEdit>> ReciprocalDivisionRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.task || !ctx.launch) return refuse("no kernel source");
  KernelView view(ctx);
  auto calls = recipe_util::kernel_calls_on_line(ctx, {"tl.math.div_rn", "tl.div_rn"}, line);
  if (calls.empty()) return refuse("no tl.math.div_rn call on the line");
  std::string why_not;
  for (const PyNode* call : calls) {
    const PyNode* a = argument(*call, 0);
    const PyNode* s = argument(*call, 1);
    if (!a || !s) continue;
    auto s_shape = view.shape(*s);
    auto q_shape = view.shape(*call);
    if (!s_shape || !q_shape) {
      why_not = fmt::format("the shapes of {} and of the quotient are not known from the source", view.text(*s));
      continue;
    }
    if (elements(*s_shape) >= elements(*q_shape)) {
      why_not = fmt::format("the divisor {} has as many elements as the quotient: a reciprocal per element saves "
                            "nothing",
                            view.text(*s));
      continue;
    }
    const PyNode* stmt = PyModule::enclosing_statement(*call);
    if (!stmt || (stmt->type != "Assign" && stmt->type != "AugAssign" && stmt->type != "AnnAssign" &&
                  stmt->type != "Expr")) {
      why_not = "the division is not inside an assignment or expression statement";
      continue;
    }
    std::string indent = indentation_of(ctx.task->source, stmt->line);
    std::string before;
    // Operands that are not plain names are evaluated once, into names, before the statement.
    auto bind = [&](const PyNode& e, std::string base) {
      if (e.type == "Name" || e.type == "Constant") return recipe_util::text(ctx, e);
      std::string n = view.fresh_name(std::move(base));
      before += fmt::format("{}{} = {}\n", indent, n, recipe_util::text(ctx, e));
      return n;
    };
    std::string dividend = bind(*a, "dividend");
    std::string divisor = bind(*s, "divisor");
    std::string stem = s->type == "Name" ? s->str_field("id") : "divisor";
    std::string rcp = view.fresh_name(stem + "_rcp");
    std::string q = view.fresh_name(dividend.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
                                  std::string::npos
                              ? dividend + "_q"
                              : "quotient");
    before += fmt::format("{}{} = tl.math.div_rn(1.0, {})  # correctly rounded reciprocal\n", indent, rcp, divisor);
    before += fmt::format("{}{} = {} * {}\n", indent, q, dividend, rcp);
    std::string corrected = fmt::format("tl.fma(tl.fma(-{0}, {1}, {2}), {3}, {0})", q, divisor, dividend, rcp);
    return std::vector<TextEdit>{TextEdit::insert_lines(stmt->line, before), TextEdit::replace(*call, corrected)};
  }
  return refuse(why_not.empty() ? "no tl.math.div_rn(a, s) with two arguments on the line" : why_not);
}

}  // namespace

std::unique_ptr<Recipe> make_reciprocal_division_recipe() { return std::make_unique<ReciprocalDivisionRecipe>(); }

}  // namespace tdx
