// A tl.dot operand of a K loop read as a pointer tile (tma-persistent): `target = tl.load(ptrs,
// mask=...)` of `ptrs = base + i0[:, None] * s0 + i1[None, :] * s1` advanced by `BLOCK * s_k`, its
// index vectors, strides and extents, and the mask forms that give the extents.
#pragma once

#include <string>

#include "tritondx/core/diagnostic.h"
#include "tritondx/pyast/py_ast.h"
#include "tritondx/source/kernel_view.h"

namespace tdx::dot_operand {

// `start + tl.arange(0, BLOCK)` (start "0" for a bare arange), or `(start + tl.arange(0, BLOCK)) % E`
// (Triton's matmul tutorial wraps the rows and columns past the extent instead of masking them).
struct IndexVector {
  std::string start, block;
  std::string wrap;  // E of `% E`; empty when the index does not wrap
};

// One dot operand: `target = tl.load(ptrs, mask=..., other=0)` of `ptrs = base + i0[:, None] *
// s0 + i1[None, :] * s1`, with `ptrs += BLOCK * s_k` in the loop.
struct Operand {
  const PyNode* load_stmt = nullptr;
  std::string target, base;
  std::string index[2], index_text[2], stride[2], extent[2];
  std::string offset[2];  // where the descriptor load starts: the tile's start, or the K position
  IndexVector vec[2];
  int k_dim = -1;
};

// Reads `ptrs` (assigned once at the kernel's top level, advanced at most once in `loop`) into
// op.base, op.index*, op.stride and op.vec; an error naming what does not fit.
Expected<void> parse_pointer_tile(const KernelContext& ctx, const l0::KernelView& view, const std::string& ptrs,
                                  const PyNode& loop, Operand& op, int line);

// Reads the load's mask into op.extent (see the definition for the forms); `k_pos` is where the
// K loop is at its iteration. Needs op.index_text, op.vec and op.k_dim.
Expected<void> parse_mask(const KernelContext& ctx, const l0::KernelView& view, const PyNode& mask,
                          const std::string& k_pos, Operand& op, int line);

// An `if FLAG:` on a constexpr parameter (even-shape-heuristic's) whose branches only load, each
// assigning `target` once from a tl.load of the same pointer tile: the load of the `else` branch
// (the masked one, which keeps the extents); nullptr otherwise.
const PyNode* flag_split_load(const l0::KernelView& view, const PyNode& branch, const std::string& target);

}  // namespace tdx::dot_operand
