// What `tritondx optimize` is asked to do, and its budgets.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "tritondx/optimize/evaluate.h"

namespace tdx {

// What the search says after each candidate's evaluation (optimize prints it as one line).
struct CandidateProgress {
  long long id = 0;
  std::string recipe;   // empty for the original kernel
  int target_line = 0;
  std::string status;   // verified, rejected, ...
  std::string result;   // its time, its static estimate, or why it was rejected
  long long best_id = 0;
  std::string best;     // the best kernel so far against the original: "1.23x measured"
  int evaluated = 0, max_candidates = 0;  // candidates evaluated so far (the original not counted)
  double elapsed = 0, budget = 0;         // seconds
};

struct OptimizeOptions {
  std::string task_path;
  std::string out_dir;        // empty: default_out_dir(task_path)
  std::string store_path;     // empty: <out_dir>/store.sqlite
  bool resume = false;        // continue the latest unfinished run of this task in the store
  GpuMode gpu = GpuMode::Auto;
  int max_candidates = 24;    // candidates evaluated (each: compile, re-diagnose, run on the GPU if any)
  double max_seconds = 1800;  // wall-time budget of the search
  int max_depth = 4;          // rewrites stacked on the original at most
  double min_gain = 0.02;     // a child must beat its parent by this fraction to count as progress
  double near_roofline = 0.9; // stop once the best kernel reaches this fraction of its roofline floor
  bool profile = true;        // with a GPU: Nsight Compute on the original and on each node expanded (L1)
  std::string recording;      // a GPU recording of the original (run.json, ncu CSVs) for its L1 findings
  bool tune = true;           // with a GPU, last: a launch-parameter grid on the best kernel (launch_grid.h)
  double tune_below_roofline = 0.98;  // ... unless the best kernel reaches this fraction of its roofline
  bool llm = false;           // also ask the configured LLM endpoint for candidates
  int llm_attempts = 1;       // chat requests per expansion (independent replies; at temperature 0 they repeat)
  bool recipes = true;        // false: the LLM's candidates only (no built-in recipes, no launch tuning)
  std::string llm_config;     // JSON config file for the LLM (else the environment)
  std::string llm_evidence = "full";  // how much of the diagnosis the LLM gets: full | symptom | none
  std::string target = "nvidia-h200";
  std::function<void(const CandidateProgress&)> on_candidate;  // called after each evaluation
};

// Where a task's run writes when no --out is given: <task dir>/<task stem>.tritondx/.
inline std::filesystem::path default_out_dir(const std::filesystem::path& task) {
  return task.parent_path() / (task.stem().string() + ".tritondx");
}

}  // namespace tdx
