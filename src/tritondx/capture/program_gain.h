// What optimizing a captured program's kernels gains the program: each kernel's speedup from its
// own optimize run, weighted by its share of the program's kernel time (capture.json), and the
// whole: 1 / (sum of share / speedup over the optimized kernels + the share of the others).
// A kernel optimized without a GPU has no measured speedup, and then neither has the whole.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tdx {

struct KernelGain {
  std::string kernel;
  std::string task;
  double share = 0;
  std::optional<double> speedup;  // measured on the GPU by its optimize run
  std::string status;             // "optimized", "failed: ...", "not measured (no GPU)"
};

struct ProgramGain {
  bool gpu_ranked = false;         // shares are of measured GPU time (else of the static cost)
  std::vector<KernelGain> kernels;
  double optimized_share = 0;      // the shares of the kernels that were optimized
  std::optional<double> speedup;   // the program's kernel time before / after, when every one was measured
};

// `capture` is capture.json; `reports` maps a task file (absolute) to its optimize report.json
// (absent when the run failed).
ProgramGain program_gain(const nlohmann::json& capture,
                         const std::vector<std::pair<std::string, std::optional<nlohmann::json>>>& reports);

std::string render_program_gain(const ProgramGain& g);

}  // namespace tdx
