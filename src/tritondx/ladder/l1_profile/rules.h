// Factories of the L1 profiling-diagnosis rules (one rule per file in this folder).
#pragma once

#include <memory>

#include "tritondx/ladder/rule.h"

namespace tdx {

std::unique_ptr<Rule> make_bound_class_rule();
std::unique_ptr<Rule> make_hot_line_stall_rule();
std::unique_ptr<Rule> make_ncu_rule_rule();
std::unique_ptr<Rule> make_occupancy_limiter_rule();
std::unique_ptr<Rule> make_roofline_gap_rule();
std::unique_ptr<Rule> make_l1_shared_bank_conflicts_rule();
std::unique_ptr<Rule> make_l1_uncoalesced_access_rule();

}  // namespace tdx
