// Factories of the L2 IR-attribution rules (one rule per file in this folder).
#pragma once

#include <memory>

#include "tritondx/ladder/rule.h"

namespace tdx {

std::unique_ptr<Rule> make_dot_not_wgmma_rule();
std::unique_ptr<Rule> make_dot_operands_without_tma_rule();
std::unique_ptr<Rule> make_excessive_predication_rule();
std::unique_ptr<Rule> make_int_div_mod_index_rule();
std::unique_ptr<Rule> make_layout_conversion_rule();
std::unique_ptr<Rule> make_narrow_global_access_rule();
std::unique_ptr<Rule> make_narrow_pipe_bound_rule();
std::unique_ptr<Rule> make_register_limited_occupancy_rule();
std::unique_ptr<Rule> make_register_spills_rule();
std::unique_ptr<Rule> make_replicated_loads_rule();
std::unique_ptr<Rule> make_shared_bank_conflicts_rule();
std::unique_ptr<Rule> make_uncoalesced_access_rule();
std::unique_ptr<Rule> make_unpipelined_loop_rule();

}  // namespace tdx
