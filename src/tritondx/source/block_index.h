// Blocks and masks as L0 rules see them: an index `start + tl.arange(0, BLOCK)` split into its
// block and the range of its start, the bound comparisons a mask is made of, and how many
// lanes the blocks leave masked for the captured launch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

// index = start + tl.arange(a, a + block), possibly broadcast ([:, None]) or hinted.
struct BlockIndex {
  const PyNode* arange = nullptr;  // the tl.arange call
  long long block = 0;             // its length
  Range start;                     // the values the first lane's index takes
  // Distinct block starts, when they step by the block (pid * BLOCK, range(0, n, BLOCK)).
  std::optional<long long> blocks() const;
};

std::optional<BlockIndex> decompose_block_index(const KernelView& view, const PyNode& index);

// One comparison of a mask: `index < limit` (upper) or `index >= limit` (lower).
struct MaskBound {
  const PyNode* compare = nullptr;
  const PyNode* index = nullptr;  // the tensor side (built from tl.arange)
  const PyNode* limit = nullptr;  // the scalar side
  bool upper = true;              // index < limit / index <= limit
  bool inclusive = false;         // <= or >=
  std::optional<Range> index_range, limit_range;

  // True for every lane of every program of the captured launch.
  bool always_true() const;
};

// The conjuncts of a mask (through local names, `&` and `and`).
std::vector<const PyNode*> mask_conjuncts(const KernelView& view, const PyNode& mask);
// A conjunct read as a bound comparison, nullopt if it is something else.
std::optional<MaskBound> mask_bound(const KernelView& view, const PyNode& conjunct);

// Lanes that blocks of `index` cover against an upper bound `limit`.
struct Coverage {
  long long blocks = 0;
  long long lanes = 0;  // blocks * block
  long long valid = 0;  // lanes with index < limit
  double masked_fraction() const { return lanes ? double(lanes - valid) / double(lanes) : 0.0; }
  // The same count over the blocks that reach the limit only: a grid that launches blocks past
  // it (a program sized for another tensor's extent) leaves those idle whatever the block size.
  Coverage of_reaching_blocks(long long block) const;
};
std::optional<Coverage> coverage(const BlockIndex& index, long long limit);

// Every (memory op, bound) pair of the kernel's masked tl.load / tl.store calls.
struct MaskedAccess {
  const PyNode* memop = nullptr;
  MaskBound bound;
};
std::vector<MaskedAccess> masked_accesses(const KernelView& view);

// Does the address `address` use `index` (a node, or the value a name holding it was assigned)
// along its contiguous dimension: through additions, broadcasts and multiplies by 1 only, with
// no tl.max_contiguous on the way?
bool indexes_contiguously(const KernelView& view, const PyNode& address, const PyNode& index);

// Does some tl.arange that flows into `address` index it contiguously (indexes_contiguously)?
// False for a strided row (`row + 2 * offs`) or an address built from no tl.arange.
bool contiguous_along_arange(const KernelView& view, const PyNode& address);

// The memory op moving the most elements per program (its pointer's shape).
struct Tile {
  const PyNode* memop = nullptr;
  long long elements = 0;
  size_t rank = 0;  // dimensions larger than 1
  std::vector<long long> shape;
};
std::optional<Tile> largest_tile(const KernelView& view);

// The largest power-of-two chunk (16 .. max_block) that covers `extent` with at most
// `max_waste` of its lanes masked (16 if none does).
long long best_chunk(long long extent, long long max_block, double max_waste);

// A full-block guard `if start + BLOCK <= n:` (unmasked-full-blocks writes it: the body runs the
// block unmasked, the else-branch is the masked tail).
struct FullBlockGuard {
  const PyNode* sum = nullptr;  // `start + BLOCK`
  std::string bound;            // n, when it is a name ("" otherwise)
};
// The full-block guards around `node` whose body holds it (or, with `in_else`, whose else-branch
// holds it), innermost first.
std::vector<FullBlockGuard> full_block_guards(const PyNode& node, bool in_else);

}  // namespace tdx::l0
