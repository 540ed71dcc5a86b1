// The best-first search's state and steps (internal to optimize/): search.cpp sets up, evaluates,
// expands and runs it; search_tuning.cpp tunes the launch of the best kernel and its rival and
// tries the rewrites that want the tuned launch.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tritondx/bridge/bridge.h"
#include "tritondx/integrity/integrity.h"
#include "tritondx/ladder/rule.h"
#include "tritondx/optimize/evaluate.h"
#include "tritondx/optimize/evaluation_costs.h"
#include "tritondx/optimize/launch_grid.h"
#include "tritondx/optimize/search.h"
#include "tritondx/rewrite/llm/llm_rewriter.h"
#include "tritondx/rewrite/recipe.h"
#include "tritondx/store/store.h"

namespace tdx::search_detail {

// What a rewrite must keep, in prose (for the LLM; recipes keep it by construction).
std::string constraints(const KernelContext& ctx);

class Search {
 public:
  Search(const Bridge& bridge, const OptimizeOptions& options) : bridge_(bridge), o_(options) {
    register_all_rules(rules_);
    register_builtin_recipes(recipes_);
  }

  Expected<OptimizeResult> run();

 private:
  Expected<void> setup();
  Expected<void> start_or_resume();
  // After the original kernel's evaluation: the run's device, or no GPU; a rejected original ends the run.
  Expected<void> settle_original();
  Expected<size_t> evaluate_node(SearchNode node, const std::string* parent_source, bool measure);
  Expected<void> expand(size_t index);
  std::optional<size_t> next_frontier();
  // Was the node made by a recipe whose value is in the recipes it enables?
  bool enables_others(const SearchNode& n) const {
    const Recipe* made = n.candidate.rewriter == "recipe" ? recipes_.find(n.candidate.recipe) : nullptr;
    return made && !made->enables().empty();
  }
  bool budget_left(std::string& why) const;
  // Seconds since the search started, less the time waiting for a GPU other bench workers held.
  double elapsed() const;
  double budget_spent() const;  // elapsed() since budget_from_: the time budget's seconds spent
  // Seconds this search has waited for a GPU other bench workers held.
  double waited() const;
  // Keeps what came of an attempt (AttemptRecord), one record per finding it targeted.
  void record_attempt(long long parent, const RewriteAttempt& a, const std::string& outcome, long long candidate,
                      const std::string& reason);
  size_t best_index() const;
  // Tells o_.on_candidate what came of node `index` and which kernel is best so far.
  void report_progress(size_t index) const;
  // The indices of a node and its ancestors, up to the original: the node's line.
  std::vector<size_t> line_of(size_t index) const;
  std::optional<size_t> tuning_rival(size_t best) const;
  Expected<void> tune_launch();
  Expected<void> tune_node(size_t index, nlohmann::json& record);
  // Interleaved rounds of the grid's fastest variant against `base` (a gain under --min-gain):
  // the speedup's JSON when they confirm it, none otherwise.
  std::optional<nlohmann::json> confirm_small_gain(const SearchNode& base, const GridVariant& winner);
  Expected<void> rewrite_after_tuning();
  // Stores `candidate` as a child of node `parent` and evaluates it, measured; nothing when its
  // source is already in the run.
  Expected<void> evaluate_late_child(size_t parent, Candidate candidate);
  Expected<void> finish();
  // `profile`: Nsight Compute too (the original, and nodes about to be expanded); `original`: the
  // node is the original kernel (a recording given on the command line is its evidence).
  EvaluateOptions eval_options(bool measure, bool candidate, bool profile = false, bool original = false) const;
  Expected<DiagnosisSession*> session_for(size_t index);
  void note_once(std::string note) {
    if (std::find(r_.notes.begin(), r_.notes.end(), note) == r_.notes.end()) r_.notes.push_back(std::move(note));
  }

  const Bridge& bridge_;
  OptimizeOptions o_;
  RuleRegistry rules_;
  RecipeRegistry recipes_;
  std::optional<Store> store_;
  std::unique_ptr<Bridge> llm_bridge_;
  std::unique_ptr<LlmRewriter> llm_;
  OptimizeResult r_;
  std::string original_source_;
  std::optional<integrity::TaskSource> original_task_;  // what every candidate must stay faithful to
  std::string task_sha_;
  std::filesystem::path candidates_dir_, artifacts_dir_;
  // Candidates run in a bridge of their own (their module is imported and launched there), so
  // nothing one candidate does at import time can reach another, or the original's session.
  // Only the original's session is kept; a candidate's is rebuilt when it is expanded.
  std::map<size_t, std::unique_ptr<DiagnosisSession>> sessions_;
  std::unique_ptr<Bridge> expansion_bridge_;
  std::vector<std::string> seen_;  // source hashes already in the run
  size_t escalation_ = 0;
  std::set<long long> llm_asked_;  // (candidate, escalation) pairs the LLM was asked about
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double waited_at_start_ = bridge_gpu_lock_wait_seconds();
  double budget_from_ = 0;  // elapsed() when the original kernel was settled: the time budget counts from it
  EvaluationCosts costs_;
  std::optional<size_t> expanding_;  // the node expand() is working on
};

}  // namespace tdx::search_detail
