// Factories of the L3 compiler-grounded rules (one rule per file in this folder).
#pragma once

#include <memory>

#include "tritondx/ladder/rule.h"

namespace tdx {

std::unique_ptr<Rule> make_async_wgmma_serialized_rule();
std::unique_ptr<Rule> make_compiler_remark_rule();
std::unique_ptr<Rule> make_layout_conversion_cause_rule();
std::unique_ptr<Rule> make_loop_not_pipelined_rule();
std::unique_ptr<Rule> make_mma_v3_precondition_rule();
std::unique_ptr<Rule> make_pass_effects_rule();
std::unique_ptr<Rule> make_vectorization_lost_rule();

}  // namespace tdx
