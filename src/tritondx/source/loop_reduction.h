// A loop-carried accumulator updated with a full reduction of a block every iteration:
// `acc += tl.sum(x, axis=0)`, `acc = acc + tl.sum(x)`, `m = tl.maximum(m, tl.max(x, axis=0))`,
// `m = tl.minimum(m, tl.min(x))` (x of any rank, acc a scalar or the rows left by the axis),
// where each iteration pays a cross-warp reduction that one reduction after the loop could pay.
// Shared by the rule that reports it (l0-reduction-in-loop) and the recipe that moves the
// reduction out of the loop (reduce-after-loop).
#pragma once

#include <string>
#include <vector>

#include "tritondx/source/accumulator_update.h"
#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct LoopReduction {
  const PyNode* loop = nullptr;          // the For/While whose body holds the update directly
  const PyNode* update = nullptr;        // the AugAssign / Assign statement
  const PyNode* reduction = nullptr;     // the tl.sum / tl.max / tl.min call
  const PyNode* operand = nullptr;       // the reduced block (x)
  const PyNode* combine_read = nullptr;  // the update's read of acc (`acc` in `acc + ...`); null for `acc += ...`
  const Definition* init = nullptr;      // acc's definition before the loop
  std::string acc;
  LoopReductionKind kind = LoopReductionKind::Sum;
  // Why the reduction must stay in the loop ("" when it can leave it): the accumulator's running
  // value is read in the loop, it is assigned elsewhere in the loop, or the loop exits early.
  std::string blocker;
  int blocker_line = 0;
};

// Every such update of the kernel, in source order: a statement directly in a loop's body
// (not under an `if`), updating a name assigned before the loop, with a tl.sum/tl.max/tl.min
// (no return_indices, no custom combine) of an operand that is not a scalar. Candidates whose
// reduction cannot leave the loop are included, with `blocker` saying why.
std::vector<LoopReduction> loop_reductions(const KernelView& view);

}  // namespace tdx::l0
