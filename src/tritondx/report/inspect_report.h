// Renderers of an InspectReport: terminal text, JSON (schema tritondx.inspect/1), HTML.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/inspect/inspect.h"

namespace tdx {

inline constexpr const char* kInspectSchema = "tritondx.inspect/1";

nlohmann::json inspect_to_json(const InspectReport& report);
std::string render_inspect_text(const InspectReport& report);
std::string render_inspect_html(const InspectReport& report);

}  // namespace tdx
