// The built-in recipes, one per file in this folder.
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {

void register_builtin_recipes(RecipeRegistry& registry) {
  registry.add(make_exp_to_exp2_recipe());  // exp-to-exp2
  registry.add(make_add_contiguity_hint_recipe());   // add-contiguity-hint
  registry.add(make_add_multiple_of_hint_recipe());  // add-multiple-of-hint
  registry.add(make_autotune_configs_recipe());      // autotune-configs
  registry.add(make_even_shape_heuristic_recipe());  // even-shape-heuristic
  registry.add(make_grow_block_recipe());        // grow-block
  registry.add(make_grow_tile_recipe());         // grow-tile
  registry.add(make_loop_num_stages_recipe());   // loop-num-stages
  registry.add(make_pipeline_loop_recipe());     // pipeline-loop
  registry.add(make_reduce_num_warps_recipe());  // reduce-num-warps
  registry.add(make_resize_block_recipe());      // resize-block
  registry.add(make_set_num_stages_recipe());    // set-num-stages
  registry.add(make_set_num_warps_recipe());     // set-num-warps
  registry.add(make_single_pass_reduction_recipe());  // single-pass-reduction
  registry.add(make_dot_input_precision_recipe());  // dot-input-precision
  registry.add(make_load_other_recipe());  // load-other
  registry.add(make_int32_index_math_recipe());  // int32-index-math
  registry.add(make_reuse_loaded_value_recipe());  // reuse-loaded-value
  registry.add(make_hoist_load_recipe());  // hoist-load
  registry.add(make_group_program_order_recipe());  // group-program-order
  registry.add(make_reorder_tile_recipe());  // reorder-tile
  registry.add(make_rows_per_program_recipe());  // rows-per-program
  registry.add(make_split_reduction_recipe());  // split-reduction
  registry.add(make_sum_in_kernel_recipe());  // sum-in-kernel
  registry.add(make_k_major_operand_recipe());  // k-major-operand
  registry.add(make_causal_loop_bound_recipe());  // causal-loop-bound
  registry.add(make_peel_causal_diagonal_recipe());  // peel-causal-diagonal
  registry.add(make_online_softmax_recipe());  // online-softmax
  registry.add(make_fuse_max_argmax_recipe());  // fuse-max-argmax
  registry.add(make_split_interleaved_pairs_recipe());  // split-interleaved-pairs
  registry.add(make_flatten_contiguous_rows_recipe());  // flatten-contiguous-rows
  registry.add(make_unmasked_full_blocks_recipe());  // unmasked-full-blocks
  registry.add(make_constexpr_divisor_recipe());  // constexpr-divisor
  registry.add(make_reduce_then_scan_recipe());  // reduce-then-scan
  registry.add(make_round_by_truncation_recipe());  // round-by-truncation
  registry.add(make_reciprocal_division_recipe());  // reciprocal-division
  registry.add(make_bitonic_topk_recipe());  // bitonic-topk
  registry.add(make_divisibility_by_construction_recipe());  // divisibility-by-construction
  registry.add(make_tma_persistent_recipe());  // tma-persistent
  registry.add(make_set_maxnreg_recipe());  // set-maxnreg
  registry.add(make_wgmma_tile_recipe());  // wgmma-tile
  registry.add(make_reduce_after_loop_recipe());  // reduce-after-loop
  registry.add(make_split_row_recipe());  // split-row
}

}  // namespace tdx
