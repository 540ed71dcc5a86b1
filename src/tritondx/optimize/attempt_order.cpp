#include "tritondx/optimize/attempt_order.h"

#include <algorithm>
#include <utility>

namespace tdx {

double measured_gain(const std::vector<SearchNode>& nodes, const std::string& recipe, const std::string& target) {
  double best = 0;
  for (const auto& n : nodes) {
    if (n.status == "rejected" || !n.score.measured || n.score.median_ms <= 0 || n.candidate.recipe != recipe ||
        n.candidate.targets.empty() || n.candidate.targets.front() != target)
      continue;
    for (const auto& p : nodes)
      if (p.id == n.parent && p.score.measured) best = std::max(best, p.score.median_ms / n.score.median_ms);
  }
  return best;
}

std::vector<size_t> order_by_measured_gain(const std::vector<RewriteAttempt>& attempts,
                                           const std::vector<SearchNode>& nodes, double min_gain,
                                           const std::vector<std::string_view>& enabled) {
  std::vector<std::pair<int, double>> key(attempts.size(), {1, 0.0});  // (group, -gain)
  for (size_t i = 0; i < attempts.size(); ++i) {
    const auto& a = attempts[i];
    if (std::find(enabled.begin(), enabled.end(), a.recipe) != enabled.end()) {
      key[i] = {-1, 0.0};
      continue;
    }
    if (a.targets.empty()) continue;
    double gain = measured_gain(nodes, a.recipe, a.targets.front());
    if (gain <= 0) continue;
    key[i] = gain >= 1 + min_gain ? std::pair{0, -gain} : std::pair{2, 0.0};
  }
  std::vector<size_t> order(attempts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
  return order;
}

}  // namespace tdx
