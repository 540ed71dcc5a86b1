// A block size that a kernel's @triton.autotune or @triton.heuristics decides: what grow-block,
// resize-block and grow-tile change instead of the launch call (which never sees that value).
#pragma once

#include <vector>

#include "tritondx/rewrite/recipe.h"
#include "tritondx/rewrite/recipes/grid_rewriter.h"
#include "tritondx/source/kernel_view.h"

namespace tdx::wrapped_block {

// Does the kernel's wrapping decide one of the changed blocks?
bool decided(const KernelContext& ctx, const std::vector<block_grid::BlockChange>& changes);

// An autotuner's block: the diagnosed config with the new blocks, added first to its configs. A
// heuristic's: a heuristic right above @triton.jit scales the computed block by to/from. Refused
// when accesses indexed by a growing block are unmasked, or the two kinds are mixed.
Expected<std::vector<TextEdit>> edits(const KernelContext& ctx, const l0::KernelView& view,
                                      const std::vector<block_grid::BlockChange>& changes, int line);

}  // namespace tdx::wrapped_block
