// The last step of a bench entry: the initial kernel, tritondx's kernel and autotune-only's winner
// timed again in interleaved rounds in one process (the bridge's `compare` verb). Each of them
// was chosen as the fastest of several noisy measurements, which favours it; these rounds
// measure the chosen ones afresh, side by side.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"

namespace tdx {

struct InterleavedKernels {
  std::string initial;        // the entry's task file
  std::string tritondx;       // the optimized kernel; "" when tritondx kept the initial one
  std::string autotune_only;  // autotune-only's winner; "" when it kept the initial one
};

// The kernels of an entry result written in `dir`: its task, tritondx's optimized kernel (the
// result's tritondx.optimized_kernel, when that file exists) and autotune_best.py (when it exists).
InterleavedKernels interleaved_kernels(const nlohmann::json& result, const std::string& task, const std::string& dir);

// {"rounds", "device", "initial_ms", "tritondx": {speedup, ci95, confirmed, median_ms,
// kept_initial?}, "autotune_only"?: {...}, "tritondx_over_autotune": {...}}; {"error"} when the
// bridge fails; null when both kept the initial kernel (nothing to compare).
nlohmann::json interleaved_part(const Bridge& bridge, const InterleavedKernels& kernels, int rounds);

}  // namespace tdx
