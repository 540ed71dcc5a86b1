#include "tritondx/optimize/search_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include "tritondx/core/check.h"

namespace tdx {

Expected<void> record_evaluation(Store& store, const SearchNode& node, const Evaluation& e) {
  if (!node.findings.empty()) TDX_CHECK(store.add_findings(node.id, node.findings));
  if (e.measurement) {
    MeasurementRow correctness;
    correctness.kind = "correctness";
    correctness.device = e.measurement->device;
    correctness.passed = e.measurement->correct && e.measurement->recheck_passed;
    correctness.json = *e.measurement;
    TDX_CHECK(store.add_measurement(node.id, correctness));
    if (const auto& t = e.measurement->timing) {
      MeasurementRow timing;
      timing.kind = "timing";
      timing.device = e.measurement->device;
      timing.median_ms = t->median_ms;
      timing.p10_ms = t->p10_ms;
      timing.p90_ms = t->p90_ms;
      timing.reps = t->reps;
      timing.json = *t;
      if (e.roofline) timing.json["roofline"] = *e.roofline;
      TDX_CHECK(store.add_measurement(node.id, timing));
    }
  }
  if (e.diagnosis) {
    MeasurementRow cost;
    cost.kind = "static-cost";
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : e.diagnosis->kernels)
      if (k.cost) kernels.push_back({{"kernel", k.kernel}, {"cost", *k.cost}});
    cost.json = {{"kernels", kernels}, {"what_ifs", e.diagnosis->what_ifs}, {"reached", level_name(e.diagnosis->reached)}};
    TDX_CHECK(store.add_measurement(node.id, cost));
  }
  if (node.target_gone) TDX_CHECK(store.set_target_gone(node.id, *node.target_gone));
  nlohmann::json score = node.score.to_json();
  score["evaluation"] = node.evaluation;
  TDX_CHECK(store.set_score(node.id, score));
  if (e.verified()) return store.set_candidate_status(node.id, CandidateStatus::Verified);
  return store.set_candidate_status(node.id, CandidateStatus::Rejected, e.reject_stage, e.reject_reason);
}

SearchNode node_from_record(const CandidateRecord& record) {
  SearchNode n;
  n.id = record.id;
  n.parent = record.parent_id.value_or(0);
  n.generation = record.generation;
  n.candidate = record.candidate;
  n.status = std::string(candidate_status_name(record.status));
  if (n.status == "accepted" || n.status == "best") n.status = "verified";  // re-decided at the end
  n.reject_stage = record.reject_stage;
  n.reject_reason = record.reject_reason;
  n.target_gone = record.target_gone;
  n.score = Score::from_json(record.score);
  if (record.score.is_object()) {
    if (record.score.contains("expanded_level"))
      n.expanded_level = record.score["expanded_level"].get<int>();
    else if (record.score.value("expanded", false))
      n.expanded_level = kFullyExpanded;
    n.evaluation = record.score.value("evaluation", nlohmann::json());
    if (n.evaluation.is_object() && n.evaluation.contains("target"))
      n.target_note = n.evaluation["target"].value("note", "");
  }
  return n;
}

Expected<void> set_run_device(Store& store, long long run_id, const std::string& device) {
  try {
    SQLite::Statement q(store.db(), "UPDATE runs SET device = ? WHERE id = ?");
    q.bind(1, device);
    q.bind(2, static_cast<int64_t>(run_id));
    q.exec();
  } catch (const std::exception& e) {
    return fail(Stage::Store, fmt::format("cannot record the run's device: {}", e.what()));
  }
  return {};
}

nlohmann::json options_to_json(const OptimizeOptions& o) {
  return {{"max_candidates", o.max_candidates}, {"max_seconds", o.max_seconds}, {"max_depth", o.max_depth},
          {"min_gain", o.min_gain}, {"near_roofline", o.near_roofline}, {"llm", o.llm},
          {"recipes", o.recipes}, {"llm_attempts", o.llm_attempts}, {"llm_evidence", o.llm_evidence},
          {"gpu", o.gpu == GpuMode::Auto ? "auto" : o.gpu == GpuMode::On ? "on" : "off"}, {"target", o.target},
          {"profile", o.profile}, {"recording", o.recording}, {"tune", o.tune},
          {"tune_below_roofline", o.tune_below_roofline}};
}

}  // namespace tdx
