// Did the findings that propose a built-in recipe lead to an evaluated candidate? From a search's
// nodes and the attempts it made: per finding, what came of its proposals, and why they declined.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/rewrite/recipe.h"

namespace tdx {

struct OptimizeResult;

struct FindingReach {
  long long node = 0;  // the candidate whose diagnosis holds the finding
  std::string rule;
  int line = 0;
  std::string level;
  std::vector<std::string> recipes;  // the built-in recipes it proposes
  // "evaluated": one of its proposals made a candidate (or the same source as one already in the
  // run); "declined": every recipe declined; "budget": one applied but the budget was spent;
  // "not-reached": its node was never expanded at its level.
  std::string outcome;
  std::vector<std::string> declines;  // "recipe: reason", one per declined proposal
};

struct Actionability {
  std::vector<FindingReach> findings;  // those of expanded candidates that propose a built-in recipe
  int advice_only = 0;                 // findings whose proposals are advice (no built-in recipe)
  int count(std::string_view outcome) const;
};

Actionability actionability(const OptimizeResult& r, const RecipeRegistry& recipes);

// {"with_recipe", "evaluated", "declined", "budget", "not_reached", "advice_only", "findings": [...]}
nlohmann::json actionability_to_json(const Actionability& a);

}  // namespace tdx
