// Even and odd elements of one contiguous row read (or written) through two stride-2 accesses:
// `tl.load(B + 2 * offs)` and `tl.load(B + 2 * offs + 1)` with `offs = tl.arange(0, E)`. Shared
// by the rule that reports them (l0-interleaved-pair-access) and the recipe that turns each pair
// into one contiguous access split in registers (split-interleaved-pairs).
#pragma once

#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct InterleavedPair {
  bool store = false;
  const PyNode* even = nullptr;  // the tl.load / tl.store call at B + 2 * offs
  const PyNode* odd = nullptr;   // the one at B + 2 * offs + 1
  const PyNode* even_stmt = nullptr;
  const PyNode* odd_stmt = nullptr;
  const PyNode* base = nullptr;  // B
  std::string offs;              // the name bound once to tl.arange(0, E)
  const PyNode* offs_stmt = nullptr;
  const PyNode* extent = nullptr;  // E
  const PyNode* mask = nullptr;    // the mask argument both share (nullptr: none)
  const PyNode* bound = nullptr;   // X of a mask `offs < X` (nullptr: no mask)
  const PyNode* other = nullptr;   // loads: the `other` both share
};

// Every pair in the kernel. Both accesses take the same mask (none, or `offs < X` written
// inline or through a name assigned once) and the same `other`, no other keyword, and sit in one
// block with nothing the address or mask reads redefined between them; two stores are adjacent
// statements of their own.
std::vector<InterleavedPair> interleaved_pairs(const KernelView& view);

}  // namespace tdx::l0
