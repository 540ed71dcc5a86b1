// The static roofline model: without a GPU, how far the compiled kernel is likely to be
// from its roofline floor, from the bytes and FLOPs the IR implies.
//
// Bytes: every global load/store of the TTIR, times the trip counts of its enclosing loops
// (evaluated from the launch's argument values), times the number of programs. Per base
// tensor, the first pass over its bytes comes from HBM and any re-reads beyond that from L2.
// FLOPs: the task's count, else 2*M*N*K per tt.dot execution. The compute ceiling is that of
// the path the compiler chose (wgmma, mma.sync, FMA/SIMT).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/analysis/kernel_summary.h"
#include "tritondx/ir/program.h"
#include "tritondx/target/target.h"
#include "tritondx/task/launch_info.h"

namespace tdx {

struct TensorTraffic {
  std::string base;         // the kernel argument the pointer derives from, e.g. "x_ptr"
  double bytes = 0;         // bytes this kernel moves for it (all programs)
  double tensor_bytes = 0;  // size of the tensor (from the launch), 0 if unknown
  bool store = false;
};

struct StaticCostEstimate {
  double min_bytes = 0;        // the task's minimum (inputs once, outputs once)
  double flops = 0;
  double hbm_bytes = 0;        // estimated DRAM traffic
  double l2_bytes = 0;         // estimated re-read traffic served by L2
  std::vector<TensorTraffic> traffic;
  std::string compute_path;    // "wgmma" | "mma.sync" | "fma" | "simt"
  double compute_peak = 0;     // FLOP/s of that path
  double best_peak = 0;        // FLOP/s of the best path for these dtypes
  double floor_seconds = 0;    // max(min_bytes / HBM, flops / best peak)
  double estimate_seconds = 0; // max(hbm/HBM + l2/L2, flops / path peak)
  double gap = 1;              // estimate / floor
  std::string bound;           // "memory" | "compute"
  bool trip_counts_known = true;
  std::vector<std::string> assumptions;
};

StaticCostEstimate estimate_static_cost(const Program& program, const KernelSummary& summary,
                                        const LaunchInfo& launch, const TargetDescription& target,
                                        long long min_bytes, long long flops);

void to_json(nlohmann::json& j, const StaticCostEstimate& e);

// The target ceiling for the kernel's math: the dot operand type's tensor-core peak
// ("fp16_flops", "bf16_flops", "tf32_flops", "fp8_flops"), or "fp32_flops" without a dot.
std::string compute_ceiling_key(const KernelSummary& summary);

}  // namespace tdx
