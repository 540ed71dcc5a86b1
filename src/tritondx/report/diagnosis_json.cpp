#include "tritondx/report/diagnosis_report.h"

namespace tdx {

nlohmann::json diagnosis_to_json(const Diagnosis& d) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : d.kernels) {
    nlohmann::json kj = {{"name", k.kernel}, {"findings", k.findings}, {"explained_gain", k.explained}};
    kj["static_cost"] = k.cost ? nlohmann::json(*k.cost) : nlohmann::json();
    kernels.push_back(std::move(kj));
  }
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : d.steps)
    steps.push_back({{"level", level_name(s.level)}, {"ran", s.ran}, {"rules_run", s.rules_run},
                     {"findings", s.findings}, {"gap", s.gap}, {"explained", s.explained}, {"decision", s.decision}});
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : d.rule_failures) failures.push_back({{"rule", f.rule_id}, {"kernel", f.kernel}, {"message", f.message}});
  nlohmann::json j = {{"schema", kDiagnosisSchema},
                      {"task", d.task_path},
                      {"target", d.target},
                      {"reached", level_name(d.reached)},
                      {"stop_reason", d.stop_reason},
                      {"steps", steps},
                      {"kernels", kernels},
                      {"rule_failures", failures},
                      {"skipped_rules", d.skipped},
                      {"what_ifs", d.what_ifs},
                      {"measurement", d.measurement},
                      {"problems", d.problems},
                      {"timing", {{"seconds", d.seconds}, {"bridge_seconds", d.bridge_seconds}}}};
  j["compile_error"] = d.compile_error ? nlohmann::json(d.compile_error->diagnostic) : nlohmann::json();
  return j;
}

}  // namespace tdx
