// The value half of grow-block, resize-block and grow-tile (block_size.cpp): where the launch
// gives a block constexpr its value, and the edit that gives it the new one.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/rewrite/recipes/grid_rewriter.h"
#include "tritondx/rewrite/recipes/launch_util.h"

namespace tdx::block_grid {

struct LaunchBlockValue {
  std::string launch_var;            // the launch-local variable (or module constant) passed, or ""
  const PyNode* computed = nullptr;  // the launch's computation of the block, when it is not a literal
  bool already_edited = false;       // the literal argument is shared with a change edited before
};

// The value the launch passes for `c.name`, edited to `c.to`:
// - a literal argument, a launch-local variable assigned a literal, or a module constant read only
//   by the launch function: the literal is replaced;
// - a computation (`min(MAX, triton.next_power_of_2(n))` inline or in a variable assigned once at
//   the top of the launch function) keeps its policy for other shapes: capped, `min(NEW, ...)`, for
//   a smaller block, scaled by NEW / OLD for a larger one;
// - a variable unpacked once at the top of the launch function (`BLOCK, num_warps =
//   calculate_settings(n)`, Liger-Kernel's helper): a line after the unpacking caps or scales it.
// A smaller block is refused where the launch checks the sizes it accepts against the variable
// (`if N > BLOCK_SIZE: raise ...`, an assert). Every node the edit covers goes into `edited`.
Expected<LaunchBlockValue> edit_launch_block_value(const KernelContext& ctx, const launch_util::LaunchSite& site,
                                                   const BlockChange& c, std::vector<TextEdit>& edits,
                                                   std::set<const PyNode*>& edited);

}  // namespace tdx::block_grid
