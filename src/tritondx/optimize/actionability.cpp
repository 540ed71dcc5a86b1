#include "tritondx/optimize/actionability.h"

#include <algorithm>

#include "tritondx/optimize/search.h"

#include <fmt/format.h>

namespace tdx {

int Actionability::count(std::string_view outcome) const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                        [&](const FindingReach& f) { return f.outcome == outcome; }));
}

Actionability actionability(const OptimizeResult& r, const RecipeRegistry& recipes) {
  Actionability out;
  for (const auto& node : r.nodes) {
    if (node.expanded_level < 0) continue;
    for (const auto& f : node.findings) {
      FindingReach reach{node.id, f.rule_id, f.loc.line, std::string(level_name(f.level)), {}, "not-reached", {}};
      for (const auto& p : f.proposals) {
        std::string id(p.recipe.str());
        if (recipes.find(p.recipe) && std::find(reach.recipes.begin(), reach.recipes.end(), id) == reach.recipes.end())
          reach.recipes.push_back(id);
      }
      if (reach.recipes.empty()) {
        if (!f.proposals.empty()) ++out.advice_only;
        continue;
      }
      bool applied = false, budget = false, declined = false;
      for (const auto& a : r.attempts) {
        if (a.parent != node.id || a.rule != f.rule_id || a.line != f.loc.line || a.rewriter != "recipe") continue;
        applied |= a.outcome == "evaluated" || a.outcome == "duplicate";
        budget |= a.outcome == "budget";
        if (a.outcome == "declined") {
          declined = true;
          std::string d = fmt::format("{}: {}", a.recipe, a.reason);
          if (std::find(reach.declines.begin(), reach.declines.end(), d) == reach.declines.end())
            reach.declines.push_back(std::move(d));
        }
      }
      reach.outcome = applied ? "evaluated" : budget ? "budget" : declined ? "declined" : "not-reached";
      out.findings.push_back(std::move(reach));
    }
  }
  return out;
}

nlohmann::json actionability_to_json(const Actionability& a) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : a.findings)
    findings.push_back({{"candidate", f.node}, {"rule", f.rule}, {"line", f.line}, {"level", f.level},
                        {"recipes", f.recipes}, {"outcome", f.outcome}, {"declines", f.declines}});
  return {{"with_recipe", static_cast<int>(a.findings.size())},
          {"evaluated", a.count("evaluated")},
          {"declined", a.count("declined")},
          {"budget", a.count("budget")},
          {"not_reached", a.count("not-reached")},
          {"advice_only", a.advice_only},
          {"findings", findings}};
}

}  // namespace tdx
