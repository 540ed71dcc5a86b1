// Factories of the L0 pattern-triage rules (one rule per file in this folder).
#pragma once

#include <memory>

#include "tritondx/ladder/rule.h"

namespace tdx {

std::unique_ptr<Rule> make_exp_instead_of_exp2_rule();
std::unique_ptr<Rule> make_fp32_dot_rule();
std::unique_ptr<Rule> make_fully_masked_iterations_rule();
std::unique_ptr<Rule> make_causal_mask_every_block_rule();
std::unique_ptr<Rule> make_int64_index_math_rule();
std::unique_ptr<Rule> make_load_without_other_in_reduction_rule();
std::unique_ptr<Rule> make_long_row_per_program_rule();
std::unique_ptr<Rule> make_mask_blocks_vectorization_rule();
std::unique_ptr<Rule> make_masked_lanes_rule();
std::unique_ptr<Rule> make_missing_alignment_hints_rule();
std::unique_ptr<Rule> make_multi_pass_reduction_rule();
std::unique_ptr<Rule> make_non_power_of_two_block_rule();
std::unique_ptr<Rule> make_num_warps_mismatch_rule();
std::unique_ptr<Rule> make_one_program_per_element_rule();
std::unique_ptr<Rule> make_reduction_in_loop_rule();
std::unique_ptr<Rule> make_redundant_load_rule();
std::unique_ptr<Rule> make_repeated_max_selection_rule();
std::unique_ptr<Rule> make_scalar_python_loop_rule();
std::unique_ptr<Rule> make_scan_then_propagate_rule();
std::unique_ptr<Rule> make_separate_max_argmax_rule();
std::unique_ptr<Rule> make_interleaved_pair_access_rule();
std::unique_ptr<Rule> make_serial_loop_small_grid_rule();
std::unique_ptr<Rule> make_short_row_per_program_rule();
std::unique_ptr<Rule> make_tiny_block_rule();
std::unique_ptr<Rule> make_ungrouped_tile_order_rule();
std::unique_ptr<Rule> make_unneeded_mask_rule();
std::unique_ptr<Rule> make_grid_order_rereads_rule();
std::unique_ptr<Rule> make_host_summed_output_rule();

}  // namespace tdx
