// L3 compiler-grounded rules, sorted by id. One line per rule.
#include "tritondx/ladder/l3_compiler/rules.h"
#include "tritondx/ladder/rule.h"

namespace tdx {

void register_l3_rules(RuleRegistry& registry) {
  registry.add(make_async_wgmma_serialized_rule());   // l3-async-wgmma-serialized
  registry.add(make_compiler_remark_rule());          // l3-compiler-remark
  registry.add(make_layout_conversion_cause_rule());  // l3-layout-conversion-cause
  registry.add(make_loop_not_pipelined_rule());       // l3-loop-not-pipelined
  registry.add(make_mma_v3_precondition_rule());      // l3-mma-v3-precondition
  registry.add(make_pass_effects_rule());             // l3-pass-effects
  registry.add(make_vectorization_lost_rule());       // l3-vectorization-lost
}

}  // namespace tdx
