#include <stdexcept>

#include "tritondx/ladder/rule.h"

namespace tdx {

void RuleRegistry::add(std::unique_ptr<Rule> rule) {
  if (find(rule->id())) throw std::logic_error("duplicate rule id " + std::string(rule->id()));
  rules_.push_back(std::move(rule));
}

const Rule* RuleRegistry::find(std::string_view id) const {
  for (const auto& r : rules_)
    if (r->id() == id) return r.get();
  return nullptr;
}

std::vector<const Rule*> RuleRegistry::at_level(Level level) const {
  std::vector<const Rule*> out;
  for (const auto& r : rules_)
    if (r->level() == level) out.push_back(r.get());
  return out;
}

void register_all_rules(RuleRegistry& registry) {
  register_l0_rules(registry);
  register_l1_rules(registry);
  register_l2_rules(registry);
  register_l3_rules(registry);
}

}  // namespace tdx
