// A kernel that gives every program one whole row in one 1-D block: `pid = tl.program_id(0)`
// picks the row, the kernel's one `tl.arange(0, BLOCK)` spans it, every access is masked against
// the row's length, and nothing reduces or loops (Liger-Kernel's GEGLU and SwiGLU: a 16384-wide
// block of 14336 columns per program). The row can then be split across a second grid axis of
// column blocks, each program taking `tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)`. The rule
// l0-long-row-per-program reports it and the recipe split-row makes the change; both ask this.
#pragma once

#include <expected>
#include <string>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct LongRow {
  const PyNode* arange = nullptr;  // the kernel's one tl.arange(0, BLOCK)
  std::string block;               // its constexpr BLOCK
  long long block_value = 0;       // BLOCK at the captured launch
  std::string extent;              // the parameter every access's mask compares the row's offsets with
  long long elements_per_thread = 0;  // BLOCK / (32 * num_warps) at the captured launch
};

// The row and its block, or why the kernel is not one row per program that a second grid axis
// can split (the reason names the line).
std::expected<LongRow, std::string> long_row(const KernelView& view);

}  // namespace tdx::l0
