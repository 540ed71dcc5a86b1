#include "tritondx/optimize/evaluate.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "tritondx/ladder/rule.h"
#include "tritondx/rewrite/source_edit.h"

namespace tdx {

namespace {

double worst_static_seconds(const Diagnosis& d) {
  double worst = 0;
  for (const auto& k : d.kernels)
    if (k.cost) worst = std::max(worst, k.cost->estimate_seconds);
  return worst;
}

// What the confident findings still promise: the ladder's own `explained` (worst kernel).
double residual_gain(const Diagnosis& d) {
  double worst = 1;
  for (const auto& k : d.kernels) worst = std::max(worst, k.explained);
  return worst;
}

std::string violations_text(const std::vector<integrity::Violation>& violations) {
  std::string out;
  for (const auto& v : violations) out += (out.empty() ? "" : "; ") + fmt::format("{}", v);
  return out;
}

std::string correctness_summary(const Measurement& m) {
  std::string out;
  for (const auto& f : m.failures) out += (out.empty() ? "" : "; ") + f.message;
  if (out.empty() && !m.recheck_passed) out = "wrong results on the re-check after the timing loop";
  return out.empty() ? "incorrect results" : out;
}

}  // namespace

std::pair<bool, std::string> target_gone(const Diagnosis& after, const Candidate& candidate,
                                         const std::string& parent_source) {
  int moved_to = map_line(parent_source, candidate.source, candidate.target_loc.line);
  for (const auto& k : after.kernels)
    for (const auto& f : k.findings)
      for (const auto& target : candidate.targets)
        if (f.rule_id == target && f.loc.line == moved_to && (candidate.kernel.empty() || k.kernel == candidate.kernel))
          return {false, fmt::format("{} is still reported at line {} (line {} before the rewrite): {}", target,
                                     moved_to, candidate.target_loc.line, f.symptom)};
  std::string targets;
  for (const auto& t : candidate.targets) targets += (targets.empty() ? "" : ", ") + t;
  return {true, fmt::format("{} no longer reported at line {} (line {} before the rewrite)", targets, moved_to,
                            candidate.target_loc.line)};
}

Evaluation evaluate_task(const Bridge& bridge, const RuleRegistry& rules, const std::string& path,
                         const std::string& artifacts_dir, const EvaluateOptions& options,
                         const std::string* parent_source, const Candidate* candidate) {
  auto start = std::chrono::steady_clock::now();
  Evaluation e;
  auto finish = [&]() -> Evaluation {
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(e);
  };
  // Integrity first, on the source alone: nothing of a cheating candidate runs.
  if (options.original) {
    auto source = integrity::load_task_source(bridge, path);
    if (!source) {
      e.reject_stage = "compile";
      e.reject_reason = source.error().to_string();
      return finish();
    }
    auto violations = integrity::check_static(*options.original, *source);
    if (!violations.empty()) {
      for (const auto& v : violations) e.integrity.push_back(v);
      e.reject_stage = "integrity";
      e.reject_reason = violations_text(violations);
      return finish();
    }
  }
  SessionOptions so;
  so.task_path = path;
  so.artifacts_dir = artifacts_dir;
  so.target = options.target;
  so.what_if = options.what_if;
  so.autotune_config = options.autotune_config;
  auto session = DiagnosisSession::open(bridge, so);
  if (!session) {
    e.reject_stage = "compile";
    e.reject_reason = session.error().diagnostic.to_string();
    e.reject_kind = session.error().kind;
    return finish();
  }
  e.session = std::move(*session);
  const bool pass_dumps = options.ladder.all_levels || options.ladder.max_level >= 3;  // L3 reads them
  if (const auto& error = e.session->compile(pass_dumps)) {
    e.reject_stage = "compile";
    e.reject_reason = error->diagnostic.to_string();
    e.reject_kind = error->kind;
    return finish();
  }
  if (options.gpu) {
    nlohmann::json request{{"task", path}};
    if (!options.initial_task.empty()) request["initial_task"] = options.initial_task;
    if (options.original)
      request["integrity"] = {
          {"original", options.initial_task.empty() ? options.original->path : options.initial_task},
          {"gpu_profile", true}};
    auto reply = bridge.call("run", request);
    std::expected<Measurement, BridgeFailure> m =
        reply ? std::expected<Measurement, BridgeFailure>(measurement_from_json(*reply))
              : std::unexpected(reply.error());
    if (reply && options.original) {
      auto violations = integrity::runtime_violations(*reply);
      if (!violations.empty()) {
        for (const auto& v : violations) e.integrity.push_back(v);
        e.reject_stage = "integrity";
        e.reject_reason = violations_text(violations);
        return finish();
      }
    }
    if (!m && m.error().kind == "no-gpu" && options.gpu_optional) {
      e.gpu_missing = true;
    } else if (!m) {
      e.reject_stage = m.error().kind == "timeout" ? "timing" : "correctness";
      e.reject_reason = m.error().diagnostic.to_string();
      e.reject_kind = m.error().kind;
      return finish();
    } else {
      e.measurement = *m;
      // The autotuner timed another config than the first, which the capture compiled: diagnose
      // the one it chose, so that L2/L3 and the recipes' new configs start from what runs.
      const bool first = std::all_of(m->autotune_choice.begin(), m->autotune_choice.end(),
                                     [](const auto& c) { return c.second == 0; });
      if (!m->autotune_choice.empty() && nlohmann::json(m->autotune_choice) != so.autotune_config &&
          !(first && so.autotune_config.is_null())) {
        so.autotune_config = m->autotune_choice;
        auto chosen = DiagnosisSession::open(bridge, so);
        const bool compiled =
            chosen && !(*chosen)->compile(pass_dumps).has_value();
        if (compiled) {
          e.session = std::move(*chosen);
          for (const auto& [kernel, index] : m->autotune_choice)
            e.notes.push_back(fmt::format("diagnosed the config {}'s autotuner chose on the GPU (index {})", kernel, index));
        } else {
          e.notes.push_back(fmt::format("the autotuner's choice ({}) did not capture and compile again; the first config "
                                        "is diagnosed",
                                        nlohmann::json(m->autotune_choice).dump()));
        }
      }
      e.session->attach_measurement(std::move(*m));
      if (e.session->roofline()) e.roofline = *e.session->roofline();
    }
  }
  if (options.profile && e.measurement)
    for (auto& problem : e.session->profile_kernels(bridge)) e.notes.push_back(std::move(problem));
  if (!options.recording.empty())
    if (auto loaded = e.session->load_recording(options.recording); !loaded)
      e.notes.push_back("the recording was not loaded: " + loaded.error().to_string());
  e.diagnosis = run_ladder(*e.session, rules, options.ladder);
  e.static_seconds = worst_static_seconds(*e.diagnosis);
  e.residual_gain = residual_gain(*e.diagnosis);
  if (candidate && parent_source && !candidate->targets.empty()) {  // (launch tuning has no target finding)
    auto [gone, note] = target_gone(*e.diagnosis, *candidate, *parent_source);
    e.target_gone = gone;
    e.target_note = std::move(note);
  }
  if (e.measurement && e.measurement->correct && e.measurement->recheck_passed && !e.measurement->audit_passed) {
    e.reject_stage = "timing-audit";  // right when verified, wrong at a call inside the timing loop
    e.reject_reason = correctness_summary(*e.measurement);
    return finish();
  }
  if (e.measurement && (!e.measurement->correct || !e.measurement->recheck_passed)) {
    // Right at the benchmark's shapes, wrong at another the kernel will be called at.
    e.reject_stage = failed_only_at_test_inputs(*e.measurement) ? "test-shapes" : "correctness";
    e.reject_reason = correctness_summary(*e.measurement);
    return finish();
  }
  if (e.measurement && !e.measurement->timing) {
    e.reject_stage = "timing";
    e.reject_reason = "correct, but no timing came back";
    return finish();
  }
  e.verdict = "verified";
  return finish();
}

nlohmann::json evaluation_to_json(const Evaluation& e) {
  nlohmann::json j{{"verdict", e.verdict}, {"seconds", e.seconds}, {"static_seconds", e.static_seconds},
                   {"residual_gain", e.residual_gain}};
  if (!e.reject_stage.empty()) j["reject"] = {{"stage", e.reject_stage}, {"reason", e.reject_reason}};
  if (e.target_gone) j["target"] = {{"gone", *e.target_gone}, {"note", e.target_note}};
  if (e.measurement) j["measurement"] = *e.measurement;
  if (e.roofline) j["roofline"] = *e.roofline;
  if (!e.integrity.empty()) j["integrity"] = e.integrity;
  if (e.gpu_missing) j["gpu_missing"] = true;
  return j;
}

}  // namespace tdx
