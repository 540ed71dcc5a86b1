// The built-in rewriter: for every proposal in the diagnosis whose recipe is registered,
// apply that recipe to the task source and return the candidate (or why it cannot apply).
#pragma once

#include "tritondx/rewrite/recipe.h"
#include "tritondx/rewrite/rewriter.h"

namespace tdx {

class RecipeRewriter : public Rewriter {
 public:
  explicit RecipeRewriter(const RecipeRegistry& registry) : registry_(registry) {}
  std::string_view name() const override { return "recipe"; }
  std::vector<RewriteAttempt> propose(const RewriteRequest& request) override;

 private:
  const RecipeRegistry& registry_;
};

// Applies one recipe to one finding's proposal: the candidate with its diff, or the reason.
Expected<Candidate> apply_recipe(const Recipe& recipe, const KernelContext& ctx, const Finding& finding,
                                 const RewriteProposal& proposal);

}  // namespace tdx
