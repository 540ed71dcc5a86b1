#include "tritondx/report/tune_seconds.h"

#include <fmt/format.h>

namespace tdx {

std::string tune_variant_seconds(const nlohmann::json& variant) {
  const auto wall = variant.value("wall_s", nlohmann::json());
  if (!wall.is_number()) return "-";
  std::string out = fmt::format("{:.1f} s", wall.get<double>());
  std::string parts;
  const auto phases = variant.value("phases_s", nlohmann::json::object());
  for (const char* phase : {"correctness", "integrity", "timing", "recheck", "graph"}) {
    if (phases.is_object() && phases.contains(phase) && phases[phase].is_number())
      parts += fmt::format("{}{} {:.1f}", parts.empty() ? "" : ", ", phase, phases[phase].get<double>());
  }
  return parts.empty() ? out : out + ": " + parts;
}

}  // namespace tdx
