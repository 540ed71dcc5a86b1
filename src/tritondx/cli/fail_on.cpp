#include "tritondx/cli/fail_on.h"

#include <algorithm>

namespace tdx::cli {

std::vector<std::string> fail_on_choices(const RuleRegistry& registry) {
  std::vector<std::string> out{"L0", "L1", "L2", "L3"};
  for (const auto& rule : registry.rules()) out.emplace_back(rule->id());
  return out;
}

std::vector<const Finding*> findings_failing_on(const Diagnosis& d, const std::vector<std::string>& selectors) {
  std::vector<const Finding*> out;
  for (const auto& k : d.kernels)
    for (const auto& f : k.findings) {
      const std::string level(level_name(f.level));
      if (std::any_of(selectors.begin(), selectors.end(),
                      [&](const std::string& s) { return s == level || s == f.rule_id; }))
        out.push_back(&f);
    }
  return out;
}

}  // namespace tdx::cli
