// Where a launch-tuning variant's time went (the sweep's "wall_s" and the run verb's "phases_s"),
// as the optimize reports print it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tdx {

// "9.8 s: correctness 6.2, timing 1.1, recheck 2.1, graph 0.4"; "-" for a variant without them.
std::string tune_variant_seconds(const nlohmann::json& variant);

}  // namespace tdx
