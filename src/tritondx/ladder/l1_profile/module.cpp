// L1 profiling-diagnosis rules, sorted by id. One line per rule.
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {

void register_l1_rules(RuleRegistry& registry) {
  registry.add(make_bound_class_rule());             // l1-bound-class
  registry.add(make_hot_line_stall_rule());          // l1-hot-line-stall
  registry.add(make_ncu_rule_rule());                // l1-ncu-rule
  registry.add(make_occupancy_limiter_rule());       // l1-occupancy-limiter
  registry.add(make_roofline_gap_rule());            // l1-roofline-gap
  registry.add(make_l1_shared_bank_conflicts_rule());   // l1-shared-bank-conflicts
  registry.add(make_l1_uncoalesced_access_rule());      // l1-uncoalesced-access
}

}  // namespace tdx
