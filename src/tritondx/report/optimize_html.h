// The optimize report as one HTML page, rendered from its JSON (optimize_to_json): the summary,
// a chart of every measured candidate against the original, each accepted rewrite as its chain
// (symptom, evidence, cause, rewrite, result) with its diff, the other candidates, launch tuning.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tdx {

std::string render_optimize_html(const nlohmann::json& report);

}  // namespace tdx
