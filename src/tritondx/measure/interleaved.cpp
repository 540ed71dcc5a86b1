#include "tritondx/measure/interleaved.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tdx {
double median_of(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

InterleavedSpeedup interleaved_speedup(const std::vector<double>& base_ms, const std::vector<double>& new_ms,
                                       int resamples, unsigned seed) {
  InterleavedSpeedup s;
  if (base_ms.empty() || base_ms.size() != new_ms.size()) return s;
  std::vector<double> ratios;
  for (size_t r = 0; r < base_ms.size(); ++r)
    if (base_ms[r] > 0 && new_ms[r] > 0) ratios.push_back(base_ms[r] / new_ms[r]);
  if (ratios.empty()) return s;
  s.rounds = static_cast<int>(ratios.size());
  s.median = median_of(ratios);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, ratios.size() - 1);
  std::vector<double> medians(static_cast<size_t>(std::max(resamples, 1)));
  std::vector<double> sample(ratios.size());
  for (double& m : medians) {
    for (double& x : sample) x = ratios[pick(rng)];
    m = median_of(sample);
  }
  std::sort(medians.begin(), medians.end());
  const double last = static_cast<double>(medians.size() - 1);
  s.ci_low = medians[static_cast<size_t>(std::floor(0.025 * last))];
  s.ci_high = medians[static_cast<size_t>(std::ceil(0.975 * last))];
  return s;
}

nlohmann::json to_json(const InterleavedSpeedup& s) {
  return {{"rounds", s.rounds}, {"speedup", s.median}, {"ci95", {s.ci_low, s.ci_high}}, {"confirmed", s.confirmed()}};
}

}  // namespace tdx
