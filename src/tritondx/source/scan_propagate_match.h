// The scan-then-propagate structure of a blocked prefix scan over several launches: kernel A
// stores each block's `tl.cumsum` of its input into an output buffer (and the block totals
// elsewhere); a later kernel B, launched by the same function on the same output, loads that
// output back and stores it again with the scanned totals added. Shared by the rule
// l0-scan-then-propagate and the recipe reduce-then-scan.
#pragma once

#include <optional>
#include <string>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct ScanThenPropagate {
  // In A (the diagnosed kernel).
  const PyNode* scan_store = nullptr;  // the Expr statement `tl.store(out + offs, tl.cumsum(v, ...), ...)`
  const PyNode* cumsum = nullptr;      // the tl.cumsum call it stores
  const PyNode* input_load = nullptr;  // `v = tl.load(x + offs, ...)`: the call
  std::string output_param, input_param;
  // In the launch function.
  const PyNode* launch_a = nullptr;  // A's `kernel[grid](...)` call
  const PyNode* launch_b = nullptr;  // B's
  std::string output_arg, input_arg;  // the launch function's names passed as A's output and input
  // In B.
  const PyNode* kernel_b = nullptr;  // B's FunctionDef
  std::string reread_param;          // B's parameter receiving the output
  const PyNode* reread_load = nullptr;  // B's `tl.load(out + offs, ...)` call
};

// The structure, with A the view's kernel, or nullopt with `why` saying what is missing.
std::optional<ScanThenPropagate> match_scan_then_propagate(const KernelView& view, std::string& why);

// A context holding only B's source (task, module, FunctionDef): for a KernelView of B.
KernelContext second_kernel_context(const KernelContext& ctx, const ScanThenPropagate& m);

}  // namespace tdx::l0
