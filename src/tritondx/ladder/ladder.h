// The ladder: L0 first, then climb to L2 and L3 only while the findings so far do not
// explain the kernel's gap to its roofline with enough confidence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/analysis/static_cost.h"
#include "tritondx/ladder/session.h"

namespace tdx {

struct LadderOptions {
  int max_level = 3;            // --max-level
  bool all_levels = false;      // --all-levels: run every level whatever the findings explain
  double min_confidence = 0.6;  // findings below this do not count as explaining the gap
  double explain_fraction = 0.9;  // explained when the findings' gains reach this share of the gap
  double near_roofline = 1.1;     // a gap at or under this needs no explanation
  std::vector<std::string> disabled_rules;
};

struct LevelStep {
  Level level = Level::L0;
  bool ran = false;
  int rules_run = 0;
  int findings = 0;
  double explained = 1;  // product of the confident findings' gains so far (worst kernel)
  double gap = 1;        // the gap to explain (worst kernel)
  std::string decision;  // why the ladder climbed or stopped after this level
};

struct KernelDiagnosis {
  std::string kernel;
  std::optional<StaticCostEstimate> cost;
  std::vector<Finding> findings;
  double explained = 1;
};

struct Diagnosis {
  std::string task_path;
  std::string target;
  std::vector<KernelDiagnosis> kernels;
  std::vector<LevelStep> steps;
  Level reached = Level::L0;
  std::string stop_reason;
  std::vector<RuleFailure> rule_failures;
  std::vector<std::string> skipped;  // rules not run, with the reason
  std::optional<BridgeFailure> compile_error;
  std::vector<std::string> problems;  // stage parse problems, notes
  std::vector<nlohmann::json> what_ifs;
  nlohmann::json measurement;  // the task's L1 measurement and roofline, null without a GPU
  double seconds = 0;
  double bridge_seconds = 0;
};

Diagnosis run_ladder(DiagnosisSession& session, const RuleRegistry& registry, const LadderOptions& options);

// Product of the estimated gains of the confident findings, the largest per source line.
double explained_gain(const std::vector<Finding>& findings, double min_confidence);

}  // namespace tdx
