#include "tritondx/optimize/score.h"

#include <fmt/format.h>

#include <cmath>

namespace tdx {

Score Score::of(const Evaluation& e) {
  Score s;
  s.static_seconds = e.static_seconds;
  s.residual_gain = e.residual_gain;
  if (e.measured()) {
    s.measured = true;
    s.median_ms = e.measurement->timing->median_ms;
    s.p10_ms = e.measurement->timing->p10_ms;
    s.p90_ms = e.measurement->timing->p90_ms;
    s.reps = e.measurement->timing->reps;
  }
  if (e.roofline) {
    s.roofline_fraction = e.roofline->fraction;
    s.bound = e.roofline->bound;
  }
  return s;
}

nlohmann::json Score::to_json() const {
  nlohmann::json j{{"measured", measured}, {"static_seconds", static_seconds}, {"residual_gain", residual_gain}};
  if (measured) {
    j["median_ms"] = median_ms;
    j["p10_ms"] = p10_ms;
    j["p90_ms"] = p90_ms;
    j["reps"] = reps;
    j["roofline_fraction"] = roofline_fraction;
    j["bound"] = bound;
  }
  return j;
}

Score Score::from_json(const nlohmann::json& j) {
  Score s;
  if (!j.is_object()) return s;
  s.measured = j.value("measured", false);
  s.median_ms = j.value("median_ms", 0.0);
  s.p10_ms = j.value("p10_ms", 0.0);
  s.p90_ms = j.value("p90_ms", 0.0);
  s.reps = j.value("reps", 0);
  s.static_seconds = j.value("static_seconds", 0.0);
  s.residual_gain = j.value("residual_gain", 1.0);
  s.roofline_fraction = j.value("roofline_fraction", 0.0);
  s.bound = j.value("bound", "");
  return s;
}

bool better(const Score& a, const Score& b) {
  if (a.measured && b.measured) return a.median_ms < b.median_ms;
  if (a.measured != b.measured) return a.measured;
  if (a.static_seconds > 0 && b.static_seconds > 0 && std::abs(a.static_seconds - b.static_seconds) > 1e-3 * b.static_seconds)
    return a.static_seconds < b.static_seconds;
  return a.residual_gain < b.residual_gain - 1e-9;
}

bool improves(const Score& child, const Score& parent, double min_gain) {
  if (child.measured && parent.measured) return child.median_ms <= parent.median_ms * (1 - min_gain);
  if (child.static_seconds > 0 && parent.static_seconds > 0 &&
      child.static_seconds <= parent.static_seconds * (1 - min_gain))
    return true;
  // Unmeasured and no cheaper by the static model: progress is a finding removed.
  bool not_worse = child.static_seconds <= parent.static_seconds * (1 + 1e-3) || parent.static_seconds == 0;
  return not_worse && child.residual_gain < parent.residual_gain * (1 - min_gain);
}

std::string speedup_text(const Score& before, const Score& after) {
  if (before.measured && after.measured && after.median_ms > 0)
    return fmt::format("{:.2f}x measured", before.median_ms / after.median_ms);
  if (before.static_seconds > 0 && after.static_seconds > 0)
    return fmt::format("{:.2f}x by the static cost model (not measured)", before.static_seconds / after.static_seconds);
  return "not measured";
}

}  // namespace tdx
