// Evaluating one candidate: compile it, re-diagnose it (L0-L3), check that the finding it
// targeted is gone, check its integrity, and (with a GPU) its correctness and timing.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/integrity/integrity.h"
#include "tritondx/ladder/ladder.h"
#include "tritondx/measure/measurement.h"
#include "tritondx/rewrite/candidate.h"

namespace tdx {

enum class GpuMode { Auto, On, Off };

struct EvaluateOptions {
  bool gpu = false;          // measure correctness and timing with the bridge's `run` verb
  bool gpu_optional = false; // without a visible GPU, go on unmeasured instead of rejecting
  bool what_if = true;       // L3 what-if compiles during re-diagnosis
  LadderOptions ladder;      // how far re-diagnosis climbs
  std::string target = "nvidia-h200";
  // With a measurement: profile every kernel with Nsight Compute, so that the L1 rules that read
  // hardware counters and stall samples (bound class, hot lines, bank conflicts) fire.
  bool profile = false;
  // A GPU recording of this task (run.json and ncu CSV exports, as `diagnose --recording`
  // reads): its L1 evidence feeds the diagnosis without a GPU; the score stays unmeasured.
  std::string recording;
  // The original task, for the integrity checks (static, and at runtime on the GPU); null for
  // the original itself.
  const integrity::TaskSource* original = nullptr;
  // The frozen copy of the task as the run found it (the original node's file): a candidate is
  // verified against its launch() too, and against it alone when the task has no `reference`.
  std::string initial_task;
  // The config each autotuned kernel is diagnosed with: null for the first; {kernel: index} for the
  // autotuner's choice a measurement reported (a measured evaluation uses its own).
  nlohmann::json autotune_config;
};

// What a candidate's evaluation found. `verdict` is "verified" (every check that could run
// passed) or "rejected" with the stage and reason.
struct Evaluation {
  std::string verdict = "rejected";
  std::string reject_stage;   // "compile" | "integrity" | "correctness" | "timing" | "diagnosis"
  std::string reject_reason;
  std::string reject_kind;    // the bridge's error kind ("no-gpu", "compile-error", "timeout", ...)
  std::optional<bool> target_gone;     // null for the original kernel
  std::string target_note;             // where the targeted finding was looked for, what was found
  std::unique_ptr<DiagnosisSession> session;  // kept for expanding the candidate
  std::optional<Diagnosis> diagnosis;
  std::optional<Measurement> measurement;
  std::optional<Roofline> roofline;
  double static_seconds = 0;   // the static cost model's estimate (worst kernel), 0 if unknown
  double residual_gain = 1;    // what the confident findings still promise
  bool gpu_missing = false;    // a measurement was asked for, but no GPU is visible
  std::vector<nlohmann::json> integrity;  // violations (each {id, line, message})
  double seconds = 0;          // wall time of this evaluation
  std::vector<std::string> notes;  // what could not be done and was skipped (a profile, a recording)

  bool verified() const { return verdict == "verified"; }
  bool measured() const { return measurement && measurement->timing.has_value(); }
  double median_ms() const { return measured() ? measurement->timing->median_ms : 0; }
};

class Bridge;
class RuleRegistry;

// Evaluates the task file at `path` (already written). `parent_source`/`candidate` say what the
// rewrite targeted; both are null for the original kernel.
Evaluation evaluate_task(const Bridge& bridge, const RuleRegistry& rules, const std::string& path,
                         const std::string& artifacts_dir, const EvaluateOptions& options,
                         const std::string* parent_source, const Candidate* candidate);

// Was the targeted finding reported again at the line the rewrite moved it to?
std::pair<bool, std::string> target_gone(const Diagnosis& after, const Candidate& candidate,
                                         const std::string& parent_source);

nlohmann::json evaluation_to_json(const Evaluation& e);

}  // namespace tdx
