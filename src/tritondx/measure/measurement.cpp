#include "tritondx/measure/measurement.h"

#include <algorithm>

#include <fmt/format.h>

namespace tdx {

namespace {

std::optional<Timing> timing_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("median_ms")) return std::nullopt;
  Timing t;
  t.median_ms = j.value("median_ms", 0.0);
  t.p10_ms = j.value("p10_ms", 0.0);
  t.p90_ms = j.value("p90_ms", 0.0);
  t.mean_ms = j.value("mean_ms", 0.0);
  t.min_ms = j.value("min_ms", 0.0);
  t.cv = j.value("cv", 0.0);
  t.reps = j.value("reps", 0);
  return t;
}

}  // namespace

Measurement measurement_from_json(const nlohmann::json& r) {
  Measurement m;
  m.device = r.value("device", "");
  if (r.contains("autotune") && r["autotune"].is_object())
    for (const auto& [kernel, choice] : r["autotune"].items())
      if (choice.is_object() && choice.contains("index") && choice["index"].is_number_integer())
        m.autotune_choice[kernel] = choice["index"].get<int>();
  const auto correctness = r.value("correctness", nlohmann::json::object());
  m.correct = correctness.value("passed", false);
  for (const auto& d : correctness.value("draws", nlohmann::json::array())) {
    const bool test_input = d.contains("test_input") && d["test_input"].is_number_integer();
    if (!test_input) ++m.draws;
    for (const auto& f : d.value("failures", nlohmann::json::array()))
      m.failures.push_back({f.value("output", -1), f.value("message", ""), test_input ? d["test_input"].get<int>() : -1});
  }
  m.test_inputs = correctness.value("test_inputs", 0);
  m.test_inputs_checked = correctness.value("test_inputs_checked", 0);
  m.shapes_note = correctness.value("shapes_note", "");
  m.timing = timing_from_json(r.value("timing", nlohmann::json()));
  const auto graph = r.value("graph", nlohmann::json());
  m.graph = timing_from_json(graph);
  if (graph.is_object()) {
    m.graph_error = graph.value("error", "");
    if (graph.contains("fallback")) m.graph_error += "; " + graph.value("fallback", "");
  }
  for (const auto& r : correctness.value("references", nlohmann::json::array()))
    if (r.is_string()) m.references.push_back(r.get<std::string>());
  const auto recheck = r.value("recheck", nlohmann::json());
  if (recheck.is_object()) m.recheck_passed = recheck.value("passed", false);
  if (const auto audit = r.value("audit", nlohmann::json()); audit.is_object()) {
    if (audit.contains("skipped")) {
      m.audit_note = "no call audited inside the timing loop: " + audit.value("skipped", "");
    } else {
      m.audit_passed = audit.value("passed", false);
      m.audit_note = fmt::format("call {} of {} in the timing loop audited on fresh inputs", audit.value("iteration", -1),
                                 audit.value("reps", 0));
      for (const auto& f : audit.value("failures", nlohmann::json::array()))
        m.failures.push_back({f.value("output", -1), f.value("message", "")});
    }
  }
  if (r.contains("min_bytes") && r["min_bytes"].is_number()) m.min_bytes = r["min_bytes"].get<long long>();
  m.min_bytes_source = r.value("min_bytes_source", "task bytes_moved()");
  if (r.contains("flops") && r["flops"].is_number()) m.flops = r["flops"].get<long long>();
  m.input_sets = r.value("input_sets", 1);
  if (const auto phases = r.value("phases_s", nlohmann::json()); phases.is_object())
    for (const auto& [phase, seconds] : phases.items())
      if (seconds.is_number()) m.phases_s[phase] = seconds.get<double>();
  return m;
}

bool failed_only_at_test_inputs(const Measurement& m) {
  if (m.correct || m.failures.empty()) return false;
  return std::ranges::all_of(m.failures, [](const CorrectnessFailure& f) { return f.test_input >= 0; });
}

Roofline compute_roofline(const TargetDescription& target, double seconds, double min_bytes, double flops,
                          const std::string& compute_ceiling, double latency_us) {
  Roofline r;
  r.seconds = seconds;
  r.compute_ceiling = compute_ceiling;
  auto ceiling = [&](const std::string& key) {
    auto it = target.ceilings.find(key);
    return it == target.ceilings.end() ? 0.0 : it->second.value;
  };
  double hbm = ceiling("hbm_bytes_per_second");
  double peak = ceiling(compute_ceiling);
  double memory_floor = hbm > 0 ? min_bytes / hbm : 0;
  double compute_floor = peak > 0 ? flops / peak : 0;
  r.floor_seconds = std::max(memory_floor, compute_floor);
  if (seconds > 0) {
    r.fraction = r.floor_seconds / seconds;
    r.achieved_bytes_per_second = min_bytes / seconds;
    r.achieved_flops = flops / seconds;
  }
  r.bandwidth_fraction = hbm > 0 ? r.achieved_bytes_per_second / hbm : 0;
  r.compute_fraction = peak > 0 ? r.achieved_flops / peak : 0;
  if (seconds * 1e6 < latency_us && std::max(r.bandwidth_fraction, r.compute_fraction) < 0.5) {
    r.bound = "latency";
    r.why = fmt::format("the kernel takes {:.1f} us and reaches under half of both ceilings: launch and latency "
                        "dominate, not bandwidth or math",
                        seconds * 1e6);
  } else if (compute_floor > memory_floor) {
    r.bound = "compute";
    r.why = fmt::format("its FLOPs need {:.1f} us at the {} ceiling, more than its bytes need at HBM bandwidth "
                        "({:.1f} us)",
                        compute_floor * 1e6, compute_ceiling, memory_floor * 1e6);
  } else {
    r.bound = "memory";
    r.why = fmt::format("its bytes need {:.1f} us at HBM bandwidth, more than its FLOPs need ({:.1f} us)",
                        memory_floor * 1e6, compute_floor * 1e6);
  }
  return r;
}

void to_json(nlohmann::json& j, const Timing& t) {
  j = {{"median_ms", t.median_ms}, {"p10_ms", t.p10_ms}, {"p90_ms", t.p90_ms}, {"mean_ms", t.mean_ms},
       {"min_ms", t.min_ms},       {"cv", t.cv},         {"reps", t.reps}};
}

void to_json(nlohmann::json& j, const Measurement& m) {
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : m.failures) {
    failures.push_back({{"output", f.output}, {"message", f.message}});
    if (f.test_input >= 0) failures.back()["test_input"] = f.test_input;
  }
  j = {{"device", m.device},       {"correct", m.correct},           {"failures", failures},
       {"draws", m.draws},         {"recheck_passed", m.recheck_passed}, {"audit_passed", m.audit_passed},
       {"min_bytes", m.min_bytes},
       {"min_bytes_source", m.min_bytes_source}, {"flops", m.flops}, {"input_sets", m.input_sets},
       {"test_inputs", m.test_inputs}, {"test_inputs_checked", m.test_inputs_checked}};
  if (!m.shapes_note.empty()) j["shapes_note"] = m.shapes_note;
  if (!m.audit_note.empty()) j["audit_note"] = m.audit_note;
  if (!m.autotune_choice.empty()) j["autotune_choice"] = m.autotune_choice;
  j["timing"] = m.timing ? nlohmann::json(*m.timing) : nlohmann::json();
  j["graph"] = m.graph ? nlohmann::json(*m.graph) : nlohmann::json();
  if (!m.graph_error.empty()) j["graph_error"] = m.graph_error;
  j["references"] = m.references;
}

void to_json(nlohmann::json& j, const Roofline& r) {
  j = {{"seconds", r.seconds},
       {"floor_seconds", r.floor_seconds},
       {"fraction", r.fraction},
       {"achieved_bytes_per_second", r.achieved_bytes_per_second},
       {"achieved_flops", r.achieved_flops},
       {"bandwidth_fraction", r.bandwidth_fraction},
       {"compute_fraction", r.compute_fraction},
       {"compute_ceiling", r.compute_ceiling},
       {"bound", r.bound},
       {"why", r.why}};
}

std::expected<Measurement, BridgeFailure> measure_task(const Bridge& bridge, const std::string& task_path) {
  auto reply = bridge.call("run", {{"task", task_path}});
  if (!reply) return std::unexpected(reply.error());
  return measurement_from_json(*reply);
}

}  // namespace tdx
