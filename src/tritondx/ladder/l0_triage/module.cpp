// L0 pattern triage rules, sorted by id. One line per rule.
#include "tritondx/ladder/l0_triage/rules.h"

namespace tdx {

void register_l0_rules(RuleRegistry& registry) {
  registry.add(make_exp_instead_of_exp2_rule());              // l0-exp-instead-of-exp2
  registry.add(make_fp32_dot_rule());                         // l0-fp32-dot
  registry.add(make_int64_index_math_rule());                 // l0-int64-index-math
  registry.add(make_interleaved_pair_access_rule());           // l0-interleaved-pair-access
  registry.add(make_load_without_other_in_reduction_rule());  // l0-load-without-other-in-reduction
  registry.add(make_long_row_per_program_rule());             // l0-long-row-per-program
  registry.add(make_mask_blocks_vectorization_rule());        // l0-mask-blocks-vectorization
  registry.add(make_masked_lanes_rule());                     // l0-masked-lanes
  registry.add(make_missing_alignment_hints_rule());          // l0-missing-alignment-hints
  registry.add(make_multi_pass_reduction_rule());             // l0-multi-pass-reduction
  registry.add(make_non_power_of_two_block_rule());           // l0-non-power-of-two-block
  registry.add(make_num_warps_mismatch_rule());               // l0-num-warps-mismatch
  registry.add(make_one_program_per_element_rule());          // l0-one-program-per-element
  registry.add(make_reduction_in_loop_rule());                // l0-reduction-in-loop
  registry.add(make_redundant_load_rule());                   // l0-redundant-load
  registry.add(make_repeated_max_selection_rule());           // l0-repeated-max-selection
  registry.add(make_scalar_python_loop_rule());               // l0-scalar-python-loop
  registry.add(make_scan_then_propagate_rule());              // l0-scan-then-propagate
  registry.add(make_separate_max_argmax_rule());              // l0-separate-max-argmax
  registry.add(make_serial_loop_small_grid_rule());           // l0-serial-loop-small-grid
  registry.add(make_short_row_per_program_rule());            // l0-short-row-per-program
  registry.add(make_tiny_block_rule());                       // l0-tiny-block
  registry.add(make_ungrouped_tile_order_rule());             // l0-ungrouped-tile-order
  registry.add(make_fully_masked_iterations_rule());          // l0-fully-masked-iterations
  registry.add(make_causal_mask_every_block_rule());          // l0-causal-mask-every-block
  registry.add(make_unneeded_mask_rule());                    // l0-unneeded-mask
  registry.add(make_grid_order_rereads_rule());               // l0-grid-order-rereads
  registry.add(make_host_summed_output_rule());               // l0-host-summed-output
}

}  // namespace tdx
