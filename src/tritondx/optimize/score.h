// How candidates are ranked and when a child counts as progress over its parent.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/optimize/evaluate.h"

namespace tdx {

// What ranks a candidate. Measured on a GPU, the median time decides; without one, the static
// cost model's estimate, then what the remaining confident findings still promise.
struct Score {
  bool measured = false;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  int reps = 0;
  double static_seconds = 0;
  double residual_gain = 1;
  double roofline_fraction = 0;  // measured only
  std::string bound;

  static Score of(const Evaluation& e);
  nlohmann::json to_json() const;
  static Score from_json(const nlohmann::json& j);
};

// True when `a` ranks before `b`.
bool better(const Score& a, const Score& b);
// True when `child` beats `parent` by at least `min_gain` (a fraction) on the score that decides.
bool improves(const Score& child, const Score& parent, double min_gain);
// `before` over `after` in words: "1.27x measured", "1.27x by the static cost model (not
// measured)", or "not measured".
std::string speedup_text(const Score& before, const Score& after);

}  // namespace tdx
