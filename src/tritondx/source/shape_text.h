// The shape of a tensor expression as the source spells it: for each dimension, the expression
// that sizes it (the end of the tl.arange that indexes it, `BLOCK` in `off + tl.arange(0, BLOCK)`,
// or an entry of a tl.zeros / tl.full / tl.broadcast_to shape), "1" for a broadcast dimension.
// For rewrites that declare a tensor shaped like an existing one (`tl.zeros([BLOCK_M, BLOCK_N],
// ...)`) and must stay right for every value the constexprs take, not only the captured launch's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct DimText {
  std::string text;              // "BLOCK", "64", "1"
  const PyNode* expr = nullptr;  // the node spelling it; nullptr for a broadcast 1 (or a count it computed)
};

// The dimensions of `expr`, outermost first ([] for a scalar), or nullopt when some dimension is
// not spelled by the source (a reshape, a dot, a tl.arange(a, b) with a non-constant a != 0, or
// two operands whose dimensions are spelled differently: `BLOCK_M` against `BLOCK_N` broadcast
// together is refused even when the launch gives them one value).
std::optional<std::vector<DimText>> shape_text(const KernelView& view, const PyNode& expr);

// "[BLOCK_M, BLOCK_N]".
std::string shape_list(const std::vector<DimText>& dims);

}  // namespace tdx::l0
