// Profiling one kernel with Nsight Compute through the bridge's `profile` verb, and reading
// back what ncu exported (details, raw and source pages as CSV).
#pragma once

#include <string>

#include "tritondx/bridge/bridge.h"
#include "tritondx/measure/ncu_profile.h"

namespace tdx {

// Reads the CSV exports named in `files` ("details", "raw", "source"; those present) into
// one profile. A missing or unparsable file is a Diagnostic naming it.
Expected<NcuProfile> load_ncu_exports(const std::map<std::string, std::string>& files);

// Runs `ncu` on the task's second launch of `kernel` (needs a GPU, ncu and permission to read
// the performance counters) and parses its exports. Failures keep the bridge's kind:
// "no-ncu", "no-counter-permission", "no-gpu", "timeout", "profile-failed", ...
std::expected<NcuProfile, BridgeFailure> profile_kernel(const Bridge& bridge, const std::string& task_path,
                                                        const std::string& kernel, const std::string& out_dir,
                                                        int timeout_seconds = 600);

}  // namespace tdx
