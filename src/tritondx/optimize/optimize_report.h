// The optimization report: for each accepted rewrite, the chain symptom -> IR -> compiler
// cause -> rewrite (diff) -> measured speedup; then the rejected candidates and why.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/optimize/search.h"

namespace tdx {

nlohmann::json optimize_to_json(const OptimizeResult& r);
std::string render_optimize_markdown(const OptimizeResult& r);  // the HTML: report/optimize_html.h, from the JSON
std::string render_optimize_text(const OptimizeResult& r);  // a short terminal summary

// Writes <out_dir>/<stem>.optimized.py and report.{md,html,json}; returns the paths written,
// or an error naming the file that could not be written.
Expected<std::vector<std::string>> write_optimize_outputs(const OptimizeResult& r);

}  // namespace tdx
