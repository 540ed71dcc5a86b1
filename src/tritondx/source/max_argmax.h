// A tl.max and a tl.argmax (or tl.min and tl.argmin) of the same tensor along the same axis in
// one block: two reductions where tl.max(x, axis, return_indices=True) does one. Shared by
// the rule that reports the pair (l0-separate-max-argmax) and the recipe that fuses it.
#pragma once

#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct ReductionPair {
  const PyNode* value_call = nullptr;  // tl.max(x, axis) / tl.min(x, axis)
  const PyNode* index_call = nullptr;  // tl.argmax(x, axis) / tl.argmin(x, axis)
  const PyNode* value_stmt = nullptr;  // the statements holding them (siblings in one block)
  const PyNode* index_stmt = nullptr;
  std::string reduction;               // "max" or "min"
};

// The reduced tensor (first argument or input=).
const PyNode* reduced_operand(const PyNode& call);
// The axis argument's text ("" when absent).
std::string reduction_axis(const KernelView& view, const PyNode& call);

// Every pair in the kernel: same operand text, axis and keep_dims, the value reduction without
// return_indices, both statements in the same block with no name the operand reads
// redefined between them.
std::vector<ReductionPair> separate_value_index_reductions(const KernelView& view);

}  // namespace tdx::l0
