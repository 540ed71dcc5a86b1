// The targets a benchmark suite is measured against. A suite folder may hold `targets.json`
// (bench/corpus/ has issue 29's corpus targets); without one, the built-in targets of the suite in
// bench/suite/ apply. Each target names a metric of the summary, a comparison and a threshold; the
// summary reports what was measured for each, its value at the roofline floor where that bounds
// it, and whether it is met (only once `min_entries` entries are measured).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct BenchTarget {
  std::string metric;   // one of bench_target_metrics()
  std::string compare;  // ">=" or "<="
  double value = 0;
  std::string label;    // how the summary names it, e.g. "geomean over autotune-only >= 1.3x"
};

struct BenchTargets {
  std::string source;    // the targets.json read, or "built-in"
  int min_entries = 40;  // measured entries before any target can be met (searched ones for actionability)
  std::vector<BenchTarget> targets;
};

// The metrics a target can name.
const std::vector<std::string>& bench_target_metrics();

// The targets of bench/suite/ (issue 6): 4.5x geomean, 3.0x median, 2x over autotune-only, 70% of
// roofline, faster than torch.compile on 60%, a median of at most 16 GPU evaluations, and 90% of
// proposing findings evaluated.
BenchTargets default_bench_targets();

// `<suite_dir>/targets.json` when it exists, else the defaults; an error naming the file and the
// problem when it exists but is malformed.
Expected<BenchTargets> load_bench_targets(const std::string& suite_dir);

// Each target with what the summary measured: {target, measured, met, at_roofline_floor?, reachable?}.
nlohmann::json evaluate_bench_targets(const BenchTargets& targets, const nlohmann::json& summary);

}  // namespace tdx
