// L2 IR attribution rules, sorted by id. One line per rule.
#include "tritondx/ladder/l2_attribution/rules.h"

namespace tdx {

void register_l2_rules(RuleRegistry& registry) {
  registry.add(make_dot_not_wgmma_rule());               // l2-dot-not-wgmma
  registry.add(make_dot_operands_without_tma_rule());    // l2-dot-operands-without-tma
  registry.add(make_excessive_predication_rule());       // l2-excessive-predication
  registry.add(make_int_div_mod_index_rule());           // l2-int-div-mod-index
  registry.add(make_layout_conversion_rule());           // l2-layout-conversion
  registry.add(make_narrow_global_access_rule());        // l2-narrow-global-access
  registry.add(make_narrow_pipe_bound_rule());           // l2-narrow-pipe-bound
  registry.add(make_register_limited_occupancy_rule());  // l2-register-limited-occupancy
  registry.add(make_register_spills_rule());             // l2-register-spills
  registry.add(make_replicated_loads_rule());            // l2-replicated-loads
  registry.add(make_shared_bank_conflicts_rule());       // l2-shared-bank-conflicts
  registry.add(make_uncoalesced_access_rule());          // l2-uncoalesced-access
  registry.add(make_unpipelined_loop_rule());            // l2-unpipelined-loop
}

}  // namespace tdx
