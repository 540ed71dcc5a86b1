// Speedups from interleaved rounds (the bridge's `compare` verb): versions of one task timed in
// turn, round after round, in one process. A round's ratio cancels the drift that reaches both
// versions alike; the median over rounds is the speedup, and a bootstrap over the rounds gives
// its 95% interval (docs/bench.md, the benchmark protocol's interleaved A/B).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace tdx {

struct InterleavedSpeedup {
  int rounds = 0;
  double median = 0;                 // median over rounds of base_ms / new_ms
  double ci_low = 0, ci_high = 0;    // bootstrap 95% interval of that median
  // A win the protocol accepts: at least `min_gain` and an interval above 1.
  bool confirmed(double min_gain = 1.05) const { return median >= min_gain && ci_low > 1.0; }
};

// `base_ms[r]` and `new_ms[r]` were measured in the same round r. Empty when the rounds differ in
// number or there are none. The resampling is seeded: the same rounds give the same interval.
InterleavedSpeedup interleaved_speedup(const std::vector<double>& base_ms, const std::vector<double>& new_ms,
                                       int resamples = 4000, unsigned seed = 1234);

nlohmann::json to_json(const InterleavedSpeedup& s);

// The median of `xs`; 0 when it is empty.
double median_of(std::vector<double> xs);

}  // namespace tdx
