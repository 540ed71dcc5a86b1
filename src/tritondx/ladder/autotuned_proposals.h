// Proposals of a launch value that the kernel's @triton.autotune already tries. The autotuner
// times every config on the GPU and keeps the fastest, so a proposal to run the diagnosed config
// with num_warps=8 when the configs already hold that variant would only repeat its work: the
// proposal is dropped and the finding says which config already covers it.
#pragma once

#include <vector>

#include "tritondx/ladder/context.h"
#include "tritondx/ladder/finding.h"

namespace tdx {

void drop_proposals_the_autotuner_tries(std::vector<Finding>& findings, const KernelContext& ctx);

}  // namespace tdx
