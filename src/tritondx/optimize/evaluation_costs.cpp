#include "tritondx/optimize/evaluation_costs.h"

#include <algorithm>

namespace tdx {

double EvaluationCosts::mean_candidate() const {
  if (candidates.empty()) return 0;
  double sum = 0;
  for (double s : candidates) sum += s;
  return sum / static_cast<double>(candidates.size());
}

bool EvaluationCosts::affords_profile(double elapsed, double max_seconds) const {
  if (candidates.empty() || original <= 0) return true;
  double candidate = mean_candidate();
  double profile = std::max(0.0, original - candidate);
  return elapsed + profile + candidate <= max_seconds;
}

}  // namespace tdx
