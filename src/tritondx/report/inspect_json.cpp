#include "tritondx/report/inspect_report.h"

namespace tdx {

nlohmann::json inspect_to_json(const InspectReport& r) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    kernels.push_back({{"name", k.summary.name},
                       {"launch", k.compiled.launch},
                       {"metadata", k.compiled.metadata},
                       {"files", k.compiled.files},
                       {"summary", k.summary},
                       {"lines", k.lines}});
  }
  nlohmann::json task_kernels = nlohmann::json::array();
  for (const auto& k : r.task.kernels)
    task_kernels.push_back({{"name", k.name}, {"def_line", k.def_line}, {"end_line", k.end_line}});
  return {{"schema", kInspectSchema},
          {"task", {{"path", r.task.path}, {"kernels", task_kernels}, {"tolerance", r.task.tolerance}}},
          {"target", r.target},
          {"artifacts_dir", r.artifacts_dir},
          {"timing",
           {{"bridge_seconds", r.compile_seconds},
            {"triton_compile_seconds", r.triton_seconds},
            {"parse_seconds", r.parse_seconds}}},
          {"notes", r.notes},
          {"kernels", kernels}};
}

}  // namespace tdx
