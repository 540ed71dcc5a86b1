// L1 measurements from the GPU: correctness, timing, and the roofline they imply.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/target/target.h"

namespace tdx {

struct Timing {
  double median_ms = 0, p10_ms = 0, p90_ms = 0, mean_ms = 0, min_ms = 0, cv = 0;
  int reps = 0;
};

struct CorrectnessFailure {
  int output = -1;
  std::string message;
  int test_input = -1;  // which of the task's test input tuples, -1 at make_inputs' shapes
};

struct Measurement {
  std::string device;
  bool correct = false;
  std::vector<CorrectnessFailure> failures;
  int draws = 0;                // make_inputs draws checked
  int test_inputs = 0;          // test input tuples the task has (make_test_inputs / make_small_inputs)
  int test_inputs_checked = 0;  // of those, checked before the first failure
  std::string shapes_note;      // why only make_inputs' shapes were checked, if so
  std::optional<Timing> timing;        // flushed per-call CUDA events
  std::optional<Timing> graph;         // CUDA graph replay
  std::string graph_error;             // why launch() was not timed as a CUDA graph (event timing is used)
  // What the outputs were checked against: "the reference" (the task's PyTorch reference) and/or
  // "the initial kernel" (the frozen copy of the task); empty: only that it runs and repeats.
  std::vector<std::string> references;
  bool recheck_passed = true;          // correctness after the timing loop
  bool audit_passed = true;            // the call audited inside the timing loop (timing_audit.py)
  std::string audit_note;              // which call was audited, or why none was
  long long min_bytes = 0;
  std::string min_bytes_source;
  long long flops = 0;
  int input_sets = 1;
  // Per @triton.autotune'd kernel, the index of the config its autotuner chose (the one timed).
  std::map<std::string, int> autotune_choice;
  // Wall seconds of each part of the run verb's call ("correctness", "timing", "recheck", ...).
  std::map<std::string, double> phases_s;
};

Measurement measurement_from_json(const nlohmann::json& reply);

// Wrong only at test input shapes: make_inputs' draws passed.
bool failed_only_at_test_inputs(const Measurement& m);

struct Roofline {
  double seconds = 0;            // measured median
  double floor_seconds = 0;      // max(bytes / HBM, flops / peak)
  double fraction = 0;           // floor / measured (1 = on the roofline)
  double achieved_bytes_per_second = 0;
  double achieved_flops = 0;
  double bandwidth_fraction = 0; // achieved / HBM ceiling
  double compute_fraction = 0;   // achieved / compute ceiling
  std::string compute_ceiling;   // which ceiling was used ("fp16_flops", ...)
  std::string bound;             // "memory" | "compute" | "latency"
  std::string why;               // one sentence
};

// `compute_ceiling` names the peak for the kernel's math ("fp16_flops", "tf32_flops",
// "fp32_flops"); latency-bound when the kernel takes under `latency_us` and reaches under
// half of both ceilings.
Roofline compute_roofline(const TargetDescription& target, double seconds, double min_bytes, double flops,
                          const std::string& compute_ceiling, double latency_us = 10.0);

void to_json(nlohmann::json& j, const Timing& t);
void to_json(nlohmann::json& j, const Measurement& m);
void to_json(nlohmann::json& j, const Roofline& r);

// Runs the bridge's `run` verb (needs a GPU on this machine).
std::expected<Measurement, BridgeFailure> measure_task(const Bridge& bridge, const std::string& task_path);

}  // namespace tdx
