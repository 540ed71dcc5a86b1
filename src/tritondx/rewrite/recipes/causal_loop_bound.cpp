// causal-loop-bound: a causally masked loop stops at the diagonal.
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class CausalLoopBoundRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "causal-loop-bound"; }
  std::string_view description() const override {
    return "Rewrites the upper bound of a causally masked loop, `range(lo, hi, step)` -> `range(lo, "
           "tl.minimum(hi, off + BM), step)`, where `off + BM` is one past the program's last row (the "
           "proposal's bound, from `rows = off + tl.arange(0, BM)`). The blocks it drops start after "
           "every row of the program, so the mask gives all their scores -inf; with the scores reaching "
           "only tl.max and exponentials (what l0-fully-masked-iterations checked before proposing it), "
           "they add exp(-inf) = 0 to the sums and leave the running max unchanged, so the result is "
           "the same. Proposed by l0-fully-masked-iterations.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override {
    const auto& ctx = in.ctx;
    const int line = in.proposal.params.value("loop_line", in.finding.loc.line);
    const std::string bound = in.proposal.params.value("bound", "");
    auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
    if (!ctx.function || !ctx.task) return refuse("no kernel source");
    if (bound.empty()) return refuse("the proposal names no bound");
    const PyNode* loop = recipe_util::kernel_loop_on_line(ctx, line);
    if (!loop) return refuse(fmt::format("no for loop on line {}", line));
    const PyNode* iter = loop->child("iter");
    auto args = iter && iter->type == "Call" && call_name(*iter) == "range" ? iter->children_in("args")
                                                                          : std::vector<const PyNode*>{};
    if (args.size() != 3) return refuse("the loop is not range(lo, hi, step)");
    std::string hi = recipe_util::text(ctx, *args[1]);
    if (hi.find(bound) != std::string::npos) return refuse("the loop already stops at the diagonal");
    return std::vector<TextEdit>{
        TextEdit::replace(*args[1], fmt::format("{}.minimum({}, {})", launch_util::tl_prefix(ctx), hi, bound))};
  }
};

}  // namespace

std::unique_ptr<Recipe> make_causal_loop_bound_recipe() { return std::make_unique<CausalLoopBoundRecipe>(); }

}  // namespace tdx
