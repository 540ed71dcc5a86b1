// A kernel that stores values into a buffer its launch function then only sums: the reduction
// Liger's JSD and other loss kernels leave to the host (`loss = torch.zeros(shape)`, the kernel
// stores every element's loss, `torch.sum(loss)`). Each element is written to memory, read back
// once, and the buffer is zero-filled first, all for one number. The rule
// l0-host-summed-output reports it and the recipe sum-in-kernel sums in the kernel instead; both
// ask this analysis.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct HostSummedStore {
  std::string param;                       // the kernel's pointer parameter the store writes through
  const PyNode* store = nullptr;           // the kernel's one tl.store through it
  bool per_element = false;                // it stores a block of values, or stores in a loop
  const PyNode* launch_call = nullptr;     // kernel[grid](...)
  const PyNode* launch_function = nullptr; // the FunctionDef the launch is written in
  std::string buffer;                      // the local name passed for `param`
  const PyNode* allocation = nullptr;      // `buffer = torch.zeros(...)` (or empty, *_like)
  const PyNode* sum = nullptr;             // torch.sum(buffer) / buffer.sum(): its one use after the launch
};

// The kernel's pointer parameters that some tl.store writes through, in source order.
std::vector<std::string> stored_params(const KernelView& view);

// The store through `param` and the host code around it, or why they are not a buffer that is
// only summed (the reason names the line).
std::expected<HostSummedStore, std::string> host_summed_store(const KernelView& view, const std::string& param);

}  // namespace tdx::l0
