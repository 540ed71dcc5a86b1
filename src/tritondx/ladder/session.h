// A diagnosis session: everything the ladder computes about one task, kept so that nothing
// computed is lost when a later step fails (a compile error keeps the L0 findings).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tritondx/bridge/bridge.h"
#include "tritondx/compile/compile.h"
#include "tritondx/ladder/context.h"
#include "tritondx/ladder/finding.h"
#include "tritondx/ladder/rule.h"
#include "tritondx/measure/measurement.h"
#include "tritondx/measure/ncu_profile.h"

namespace tdx {

struct SessionOptions {
  std::string task_path;
  std::string artifacts_dir;  // empty = default_artifacts_dir(task)
  std::string kernel;         // only this kernel; empty = all launched kernels
  std::string target = "nvidia-h200";
  bool what_if = true;        // allow L3 what-if compiles
  // The config each autotuned kernel is captured and compiled with: null for the first, or
  // {kernel: index} (the autotuner's choice on a GPU, Measurement::autotune_choice).
  nlohmann::json autotune_config;
};

struct KernelState {
  LaunchInfo launch;
  const PyNode* function = nullptr;
  std::optional<CompiledKernel> compiled;
  std::optional<Program> program;
  std::optional<SourceMap> source_map;
  std::optional<KernelSummary> summary;
  mutable std::unique_ptr<AxisInfoAnalysis> axis_info;
  // L1, when measured on a GPU (or loaded from a recording).
  std::optional<NcuProfile> profile;
  std::vector<HotLine> hot_lines;
};

struct RuleFailure {
  std::string rule_id;
  std::string kernel;
  std::string message;
};

class DiagnosisSession {
 public:
  // Loads the task and captures its launches (no compile): enough for L0.
  static std::expected<std::unique_ptr<DiagnosisSession>, BridgeFailure> open(const Bridge& bridge,
                                                                             SessionOptions options);
  // The same from a capture reply already in hand (no bridge: compile() and what-ifs are
  // then unavailable unless a bridge is given). Used by benchmarks and replayed recordings.
  static std::expected<std::unique_ptr<DiagnosisSession>, BridgeFailure> from_capture(const nlohmann::json& capture,
                                                                                      SessionOptions options,
                                                                                      const Bridge* bridge = nullptr);
  ~DiagnosisSession();

  // Compiles every captured kernel (with per-pass dumps if asked) and parses all stages.
  // A failure is kept in compile_error() and returned; L0 results stay valid.
  const std::optional<BridgeFailure>& compile(bool pass_dumps);
  bool compiled() const { return compiled_; }
  bool has_pass_dumps() const { return pass_dumps_; }
  const std::optional<BridgeFailure>& compile_error() const { return compile_error_; }

  // L1: the task's measurement (correctness, timing) and the roofline it implies. The
  // roofline's compute ceiling follows the compiled kernel's dot type, so compile() first.
  void attach_measurement(Measurement measurement);
  // L1: an Nsight Compute profile of one kernel; hot lines are attributed through its SASS.
  void attach_profile(const std::string& kernel, NcuProfile profile);
  // Profiles every kernel of the task with Nsight Compute (through `bridge`, on this machine's
  // GPU; exports under artifacts_dir()/ncu) and attaches each profile. Returns, one per kernel,
  // what could not be profiled and why; L1 then keeps timing and roofline for it.
  std::vector<std::string> profile_kernels(const Bridge& bridge);
  const std::optional<Measurement>& measurement() const { return measurement_; }
  const std::optional<Roofline>& roofline() const { return roofline_; }
  // Loads a recording made on a GPU: run.json (the bridge's `run` reply) and the ncu CSV
  // exports details.csv, raw.csv, source.csv (those present) from `dir`.
  Expected<void> load_recording(const std::string& dir);

  // One context per kernel (per distinct launch). L2/L3 members are null until compile().
  std::vector<KernelContext> contexts() const;

  // Runs one rule on one kernel; an exception becomes a RuleFailure.
  static std::vector<Finding> run_rule(const Rule& rule, const KernelContext& ctx,
                                       std::vector<RuleFailure>& failures);

  const Task& task() const { return task_; }
  const PyModule& ast() const { return ast_; }
  const std::vector<KernelState>& kernels() const { return kernels_; }
  const TargetDescription& target() const { return target_; }
  const std::string& artifacts_dir() const { return artifacts_dir_; }
  long long min_bytes() const { return min_bytes_; }
  std::string min_bytes_source() const { return min_bytes_source_; }
  long long flops() const { return flops_; }
  // What the capture had to emulate to run launch() without a GPU, and host reads of kernel
  // arguments whose values it could not know (python/tritondx_bridge/cuda_emulation.py).
  const std::vector<std::string>& capture_notes() const { return capture_notes_; }
  // What-if compiles run so far (each is also evidence in the findings that used it).
  const std::vector<WhatIfResult>& what_ifs() const { return what_ifs_; }
  double bridge_seconds() const { return bridge_seconds_; }
  double open_seconds() const { return open_seconds_; }  // loading + capture

 private:
  DiagnosisSession() = default;
  WhatIfResult run_what_if(const std::string& kernel, const nlohmann::json& change) const;

  const Bridge* bridge_ = nullptr;
  SessionOptions options_;
  Task task_;
  PyModule ast_;
  TargetDescription target_;
  std::string artifacts_dir_;
  std::vector<KernelState> kernels_;
  long long min_bytes_ = 0;
  std::string min_bytes_source_;
  long long flops_ = 0;
  std::vector<std::string> capture_notes_;
  bool compiled_ = false;
  bool pass_dumps_ = false;
  std::optional<BridgeFailure> compile_error_;
  std::optional<Measurement> measurement_;
  std::optional<Roofline> roofline_;
  mutable std::vector<WhatIfResult> what_ifs_;
  mutable double bridge_seconds_ = 0;
  double open_seconds_ = 0;
};

}  // namespace tdx
