// Factories of the built-in recipes (one per file in this folder, registered in module.cpp).
#pragma once

#include <memory>

#include "tritondx/rewrite/recipe.h"

namespace tdx {

std::unique_ptr<Recipe> make_exp_to_exp2_recipe();
// Recipe set A: launch configuration and compiler hints.
std::unique_ptr<Recipe> make_add_contiguity_hint_recipe();  // hints.cpp
std::unique_ptr<Recipe> make_add_multiple_of_hint_recipe();  // hints.cpp
std::unique_ptr<Recipe> make_autotune_configs_recipe();      // autotune_configs.cpp
std::unique_ptr<Recipe> make_even_shape_heuristic_recipe();  // even_shape.cpp
std::unique_ptr<Recipe> make_grow_block_recipe();       // block_size.cpp
std::unique_ptr<Recipe> make_grow_tile_recipe();        // block_size.cpp
std::unique_ptr<Recipe> make_loop_num_stages_recipe();  // loop_num_stages.cpp
std::unique_ptr<Recipe> make_pipeline_loop_recipe();     // loop_num_stages.cpp
std::unique_ptr<Recipe> make_reduce_num_warps_recipe();  // launch_option.cpp
std::unique_ptr<Recipe> make_resize_block_recipe();     // block_size.cpp
std::unique_ptr<Recipe> make_set_num_stages_recipe();   // launch_option.cpp
std::unique_ptr<Recipe> make_set_num_warps_recipe();    // launch_option.cpp
std::unique_ptr<Recipe> make_single_pass_reduction_recipe();  // single_pass_reduction.cpp
std::unique_ptr<Recipe> make_dot_input_precision_recipe();  // dot_input_precision.cpp
std::unique_ptr<Recipe> make_load_other_recipe();  // load_other.cpp
std::unique_ptr<Recipe> make_int32_index_math_recipe();  // int32_index_math.cpp
std::unique_ptr<Recipe> make_reuse_loaded_value_recipe();  // reuse_loaded_value.cpp
std::unique_ptr<Recipe> make_hoist_load_recipe();  // hoist_load.cpp
std::unique_ptr<Recipe> make_group_program_order_recipe();  // group_program_order.cpp
std::unique_ptr<Recipe> make_reorder_tile_recipe();  // reorder_tile.cpp
std::unique_ptr<Recipe> make_rows_per_program_recipe();  // rows_per_program.cpp
std::unique_ptr<Recipe> make_split_reduction_recipe();  // split_reduction.cpp
std::unique_ptr<Recipe> make_sum_in_kernel_recipe();  // sum_in_kernel.cpp
std::unique_ptr<Recipe> make_k_major_operand_recipe();  // k_major_operand.cpp
std::unique_ptr<Recipe> make_causal_loop_bound_recipe();  // causal_loop_bound.cpp
std::unique_ptr<Recipe> make_peel_causal_diagonal_recipe();  // peel_causal_diagonal.cpp
std::unique_ptr<Recipe> make_online_softmax_recipe();  // online_softmax.cpp
std::unique_ptr<Recipe> make_fuse_max_argmax_recipe();  // fuse_max_argmax.cpp
std::unique_ptr<Recipe> make_split_interleaved_pairs_recipe();  // split_interleaved_pairs.cpp
std::unique_ptr<Recipe> make_flatten_contiguous_rows_recipe();  // flatten_rows.cpp
std::unique_ptr<Recipe> make_unmasked_full_blocks_recipe();  // unmasked_full_blocks.cpp
std::unique_ptr<Recipe> make_constexpr_divisor_recipe();  // constexpr_divisor.cpp
std::unique_ptr<Recipe> make_reduce_then_scan_recipe();  // reduce_then_scan.cpp
std::unique_ptr<Recipe> make_round_by_truncation_recipe();  // round_by_truncation.cpp
std::unique_ptr<Recipe> make_reciprocal_division_recipe();  // reciprocal_division.cpp
std::unique_ptr<Recipe> make_bitonic_topk_recipe();  // bitonic_topk.cpp
std::unique_ptr<Recipe> make_divisibility_by_construction_recipe();  // divisibility_by_construction.cpp
std::unique_ptr<Recipe> make_tma_persistent_recipe();  // tma_persistent.cpp
std::unique_ptr<Recipe> make_set_maxnreg_recipe();  // set_maxnreg.cpp
std::unique_ptr<Recipe> make_wgmma_tile_recipe();  // wgmma_tile.cpp
std::unique_ptr<Recipe> make_reduce_after_loop_recipe();  // reduce_after_loop.cpp
std::unique_ptr<Recipe> make_split_row_recipe();  // split_row.cpp

}  // namespace tdx
