// Renderers of a Diagnosis: terminal text (grouped by level), JSON (schema
// tritondx.diagnosis/1), Markdown, and a self-contained HTML page with the per-line
// cross-layer view and the findings beside their lines.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/ladder/ladder.h"

namespace tdx {

inline constexpr const char* kDiagnosisSchema = "tritondx.diagnosis/1";

nlohmann::json diagnosis_to_json(const Diagnosis& d);
std::string render_diagnosis_text(const Diagnosis& d);
std::string render_diagnosis_markdown(const Diagnosis& d);
// The session provides the source and the per-line views of the compiled kernels.
std::string render_diagnosis_html(const Diagnosis& d, const DiagnosisSession& session);

}  // namespace tdx
