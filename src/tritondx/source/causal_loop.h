// The causally masked key loop of an attention kernel, as l0-fully-masked-iterations and
// l0-causal-mask-every-block read it: `for start in range(lo, hi, step)` whose body sets
// `s = tl.where(rows[:, None] >= cols[None, :], s, -inf)`, with `rows = off + tl.arange(0, BM)`
// fixed for the program and `cols` computed from `start` in the loop.
#pragma once

#include <optional>
#include <string>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct CausalLoop {
  const PyNode* loop = nullptr;
  const PyNode* where = nullptr;  // the tl.where call
  std::string rows, cols, scores;
  const PyNode* offset_node = nullptr;  // `off`: the program's first row
  std::string offset;
  const PyNode* rows_block_node = nullptr;  // `BM`
  std::string rows_block;
  std::string bound;       // one past the program's last row: `off + BM`
  bool strict = false;     // rows > cols (a query does not attend to its own key) rather than >=
};

std::optional<CausalLoop> match_causal_loop(const KernelView& view, const PyNode& loop);

// Does `expr` read the program's row offset (a name of `off` that is not a tl.constexpr)? For the
// loop's upper bound: it stops at the diagonal; for its start: it starts there.
bool reads_offset(const KernelView& view, const CausalLoop& m, const PyNode& expr);

// Why the loop cannot be split at the program's first row into blocks the mask keeps whole and
// blocks crossing the diagonal, or "" when it can: the loop starts at a multiple of its step
// (0), the offset is a multiple of the step (`pid * BM` with BM % step == 0), and `cols` is
// `start + tl.arange(0, step)`, so every block before the offset ends before the first row.
std::string diagonal_split_refusal(const KernelView& view, const CausalLoop& m);

}  // namespace tdx::l0
