// The shape of a loop accumulator's update statement, with no condition on what it adds:
// `acc += R`, `acc = acc + R` / `acc = R + acc`, `acc = tl.maximum(acc, R)` /
// `acc = tl.minimum(R, acc)` (acc a plain name). Its callers add their own conditions:
// l0-reduction-in-loop wants R to be a reduction of the same kind (loop_reduction.h), the
// single-pass-reduction recipe an R that does not read acc (rewrite/recipes/accumulation.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tritondx/pyast/py_ast.h"

namespace tdx::l0 {

enum class LoopReductionKind { Sum, Max, Min };

// "sum", "max", "min".
std::string_view loop_reduction_name(LoopReductionKind kind);

struct AccumulatorUpdate {
  const PyNode* stmt = nullptr;
  std::string acc;
  LoopReductionKind kind = LoopReductionKind::Sum;
  const PyNode* value = nullptr;         // R
  const PyNode* combine_read = nullptr;  // the update's read of acc; null for `acc += R`
  const PyNode* combine = nullptr;       // the tl.maximum / tl.minimum call; null for a sum
};

std::optional<AccumulatorUpdate> accumulator_update(const PyNode& stmt);

}  // namespace tdx::l0
