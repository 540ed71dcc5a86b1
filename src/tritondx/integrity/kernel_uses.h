// How the code launch() reaches uses the module's @triton.jit kernels: the facts behind
// integrity-kernel-not-launched (kernel_launch.cpp words the rule).
#pragma once

#include <string>
#include <vector>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

enum class KernelUseKind {
  Launch,            // kernel[grid](...), kernel.run(...), kernel.warmup(...)
  ToLaunchingHelper, // passed to a function of the module that launches that parameter: _launch(kernel, x)
  ToImportedCall,    // passed to a function the check cannot see into: functools.partial(kernel[grid], ...)
};

struct KernelUse {
  std::string kernel;
  KernelUseKind kind;
  int line;
};

std::vector<KernelUse> kernel_uses(const ModuleFacts& facts, const LaunchReach& reach);

}  // namespace tdx::integrity
