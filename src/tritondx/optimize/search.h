// The optimization search: best-first over candidates, each evaluated (compile, re-diagnosis,
// integrity, correctness and timing on a GPU), every step written to the store as it happens.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/optimize/actionability.h"
#include "tritondx/bridge/bridge.h"
#include "tritondx/optimize/evaluate.h"
#include "tritondx/optimize/optimize_options.h"
#include "tritondx/optimize/score.h"
#include "tritondx/rewrite/candidate.h"

namespace tdx {

// The search climbs the ladder in three steps: proposals from findings up to L1, then L2, then L3.
inline constexpr int kEscalationSteps = 3;
inline constexpr int kFullyExpanded = kEscalationSteps - 1;

struct SearchNode {
  long long id = 0;          // the store's candidate id
  long long parent = 0;      // 0 for the original kernel
  int generation = 0;        // rewrites stacked on the original
  Candidate candidate;       // rewriter "original" for the starting kernel
  std::string path;          // the candidate's task file on disk
  std::string status;        // "verified" | "rejected" | "accepted" (on the path to the best) | "best"
  std::string reject_stage, reject_reason;
  std::optional<bool> target_gone;
  std::string target_note;
  Score score;
  std::vector<Finding> findings;  // its diagnosis (all kernels)
  nlohmann::json evaluation;      // evaluation_to_json
  // The highest escalation step (index into the L1/L2/L3 climb) whose findings this node's
  // proposals came from; -1 until it is expanded. It is expanded again once the search climbs higher.
  int expanded_level = -1;
};

// One rewrite the search asked for: a (candidate expanded, finding, recipe) and what came of it.
struct AttemptRecord {
  long long parent = 0;  // the candidate expanded
  std::string rule;      // the targeted finding's rule
  int line = 0;          // its line in the parent (0 for the LLM's)
  std::string rewriter;  // "recipe" | "llm"
  std::string recipe;
  // "evaluated": a new candidate; "duplicate": the same source as a candidate already in the run
  // (the rewrite applied); "declined": the rewriter made nothing (reason); "budget": not evaluated,
  // the search's budget was spent.
  std::string outcome;
  long long candidate = 0;  // the evaluated candidate's id
  std::string reason;
};

// The finding of `parent` that the rewrite of `child` targeted (one of its rules, on its line), or
// nullptr.
const Finding* targeted_finding(const SearchNode& parent, const SearchNode& child);

struct OptimizeResult {
  std::string task_path;
  std::string out_dir;
  std::string store_path;
  long long run_id = 0;
  bool gpu = false;
  bool resumed = false;
  std::vector<SearchNode> nodes;  // every candidate evaluated, the original first
  size_t best = 0;                // index into nodes
  std::vector<size_t> best_path;  // original -> ... -> best
  std::string stop_reason;
  // "L1" .. "L3": the higher of the escalation reached and the level of the findings that
  // evaluated candidates targeted.
  std::string ladder_reach;
  double seconds = 0;
  int evaluated = 0;              // candidates evaluated in this invocation
  // The launch-tuning stage (launch_grid.h on the best kernel the rewrites reached): its grid
  // (launch_grid_to_json, plus "from_candidate"), null when it did not run; its variants were
  // run on the GPU as well (tune_evaluations), and the fastest, if it beat that kernel, was
  // evaluated in full as a candidate (recipe "launch-tune").
  nlohmann::json tune;
  // The same grid on the best kernel's rival (a node off its line, or, when the best is the kernel
  // as given, a rewrite its diagnosis expected a gain from, within 5% of it), null when it
  // had none; tune_evaluations counts both grids.
  nlohmann::json tune_rival;
  // The fastest variant's source when `tune` ran on the task as given (nodes.front()), whether
  // or not it beat it; empty otherwise. The bench takes that grid as its autotune-only peer.
  std::string tune_best_source;
  int tune_evaluations = 0;
  std::vector<std::string> notes;
  nlohmann::json llm_usage;
  // Every attempt of this invocation (a resumed run's earlier attempts are not kept).
  std::vector<AttemptRecord> attempts;
  // Which findings proposing a built-in recipe led to an evaluated candidate (from `attempts`).
  Actionability actionability;
};

// Runs the search; a failure that stops it (the store cannot be opened, the original kernel
// does not compile) is an error, with everything computed up to then kept in the store.
Expected<OptimizeResult> optimize(const Bridge& bridge, const OptimizeOptions& options);

}  // namespace tdx
