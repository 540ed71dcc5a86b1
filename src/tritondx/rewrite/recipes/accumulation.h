// An accumulator statement of a loop (`acc += R`, `acc = acc + R`, `acc = tl.maximum(acc, R)`,
// `acc = tl.minimum(acc, R)`; parsed by source/accumulator_update.h) whose R does not read acc,
// and whether its initialization is the identity of its reduction.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tritondx/pyast/py_ast.h"
#include "tritondx/rewrite/recipe.h"

namespace tdx::accumulation {

struct Accumulation {
  const PyNode* stmt = nullptr;
  std::string acc;
  std::string kind;  // "max", "min", "sum"
  const PyNode* value = nullptr;  // R, which does not read acc
};

std::optional<Accumulation> of(const PyNode& stmt);

// Is `init` the identity of the accumulation kind: a scalar (`0.0`, `-float("inf")`, ...) or a
// fp32 block of it (`tl.zeros(shape, dtype=tl.float32)`, `tl.full(shape, -float("inf"), ...)`)?
bool is_identity(const KernelContext& ctx, const PyNode& init, std::string_view kind);

// Is `init` a block (tl.zeros / tl.full) rather than a scalar?
bool is_block(const PyNode& init);

}  // namespace tdx::accumulation
