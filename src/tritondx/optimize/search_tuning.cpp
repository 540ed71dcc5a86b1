#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "tritondx/core/check.h"
#include "tritondx/measure/interleaved.h"
#include "tritondx/optimize/launch_grid.h"
#include "tritondx/optimize/search_impl.h"
#include "tritondx/optimize/search_store.h"
#include "tritondx/rewrite/recipe_rewriter.h"
#include "tritondx/rewrite/source_edit.h"
#include "tritondx/store/sha256.h"

// The last stage of the search: the launch grid on the best kernel and on its rival, then the
// rewrites that want the tuned launch.
namespace tdx::search_detail {

namespace fs = std::filesystem;

// The gain the diagnosis expected from a node's rewrite: the estimated gain of the parent's finding
// it targeted, 0 when that finding gave none.
static double expected_gain(const SearchNode& n, const std::vector<SearchNode>& nodes) {
  for (const auto& p : nodes)
    if (p.id == n.parent)
      if (const Finding* f = targeted_finding(p, n); f && f->estimated_gain) return *f->estimated_gain;
  return 0;
}

// A rival of the best node: the fastest measured node off the best's line (neither its ancestor
// nor its descendant) within kRivalMargin of it. When no rewrite beat the kernel as given, a rewrite
// its diagnosis expected to gain from (an estimated gain above --min-gain) is a rival too: timed at
// the given launch, it may lose only to that launch. On the H100, Liger's JSD after sum-in-kernel,
// with the given 65536-element block at 4 warps, spills as the kernel as given does; tuned (a
// 16384-element block, 16 warps) it ran 0.50 ms, against 1.03 ms for the kernel as given, tuned
// (results/gpu/corpus-2026-12-07-s27). Rewrites without an expected gain are not tuned again: the
// grid would mostly repeat the original's. Rewrites of different structure can rank
// differently once tuned: on the H200, topk_rows_k8's tl.topk form beat the fused max/argmax
// rounds by 2% at 4 warps, and lost to them by 12% when both ran at 1 warp
// (bench/results/logs/2026-12-05-h200-recipe-variants.txt).
constexpr double kRivalMargin = 0.05;

std::optional<size_t> Search::tuning_rival(size_t best) const {
  const SearchNode& b = r_.nodes[best];
  const std::vector<size_t> best_line = line_of(best);
  auto on = [](const std::vector<size_t>& line, size_t i) { return std::find(line.begin(), line.end(), i) != line.end(); };
  std::optional<size_t> rival;
  for (size_t i = 1; i < r_.nodes.size(); ++i) {
    const SearchNode& n = r_.nodes[i];
    if (on(best_line, i) || n.status == "rejected" || !n.score.measured) continue;
    if (n.score.median_ms > b.score.median_ms * (1 + kRivalMargin)) continue;
    if (on(line_of(i), best) && (best != 0 || expected_gain(n, r_.nodes) < 1 + o_.min_gain)) continue;
    if (!rival || better(n.score, r_.nodes[*rival].score)) rival = i;
  }
  return rival;
}

// After the search: what blind tuning finds on top of the rewrites, on the best kernel and on its
// rival (tuning_rival), if it has one.
Expected<void> Search::tune_launch() {
  if (!r_.gpu || !o_.tune || !o_.recipes) return {};
  for (const auto& n : r_.nodes)
    if (n.candidate.recipe == "launch-tune") return {};  // a resumed run that was tuned already
  size_t best = best_index();
  if (!r_.nodes[best].score.measured) return {};
  std::optional<size_t> rival = tuning_rival(best);
  TDX_CHECK(tune_node(best, r_.tune));
  if (rival) TDX_CHECK(tune_node(*rival, r_.tune_rival));
  return {};
}

// The grid runs in one bridge process per sweep (cheap per variant); its winner is then evaluated
// like any candidate (integrity, correctness, timing in a bridge of its own) before it can become
// the best. `record` gets the grid (launch_grid_to_json).
Expected<void> Search::tune_node(size_t index, nlohmann::json& record) {
  const SearchNode& b = r_.nodes[index];
  // Not near_roofline: a kernel the search stops at (90%) can still gain from tuning.
  if (b.score.roofline_fraction >= o_.tune_below_roofline) {
    r_.notes.push_back(fmt::format("launch tuning skipped: candidate {} already reaches {:.0f}% of its roofline", b.id,
                                   100 * b.score.roofline_fraction));
    return {};
  }
  if (!fs::exists(b.path)) std::ofstream(b.path) << b.candidate.source;
  fs::path dir = fs::path(r_.out_dir) / "tune";
  auto grid = launch_grid(bridge_, b.path, dir.string(), b.score.median_ms, true, r_.nodes.front().path);
  if (!grid) {
    r_.notes.push_back(fmt::format("launch tuning of candidate {} failed: {}", b.id, grid.error().to_string()));
    return {};
  }
  r_.tune_evaluations += grid->gpu_evaluations;
  record = launch_grid_to_json(*grid, b.score.median_ms);
  record["from_candidate"] = b.id;
  record["base_ms"] = b.score.median_ms;
  std::optional<GridVariant> winner;
  std::string winner_source;
  if (grid->best) {
    winner = grid->variants[*grid->best];
    winner_source = read_file(winner->path, Stage::Rewrite).value_or("");
    if (index == 0) r_.tune_best_source = winner_source;
  }
  // A winner (always faster than the kernel: launch_grid's `best`) under --min-gain is kept only
  // when interleaved rounds confirm it: the fastest of a grid is favoured by its own noise.
  const bool under_margin = winner && winner->median_ms() > b.score.median_ms * (1 - o_.min_gain);
  std::optional<nlohmann::json> confirmed;
  if (under_margin) confirmed = confirm_small_gain(b, *winner);
  fs::remove_all(dir);  // the winner's source goes into its candidate below
  if (!winner || (under_margin && !confirmed)) {
    r_.notes.push_back(fmt::format("launch tuning: none of {} variants of candidate {} beat it by {:.0f}%{}",
                                   grid->variants.size(), b.id, 100 * o_.min_gain,
                                   winner ? ", and the rounds did not confirm the smaller gain of its fastest" : ""));
    return {};
  }
  Candidate tuned;
  tuned.rewriter = "recipe";
  tuned.recipe = "launch-tune";
  tuned.kernel = b.candidate.kernel;
  tuned.description = fmt::format("launch parameters from a grid of {} variants: {}", grid->variants.size(),
                                  winner->description);
  tuned.params = {{"config", winner->description}, {"grid_median_ms", winner->median_ms()}};
  if (confirmed) {
    tuned.params["interleaved"] = *confirmed;
    tuned.description += fmt::format(" (under --min-gain; confirmed in {} interleaved rounds: {:.4f}x, 95% interval "
                                     "[{:.4f}, {:.4f}])",
                                     (*confirmed)["rounds"].get<int>(), (*confirmed)["speedup"].get<double>(),
                                     (*confirmed)["ci95"][0].get<double>(), (*confirmed)["ci95"][1].get<double>());
  }
  tuned.source = std::move(winner_source);
  if (tuned.source.empty()) return fail(Stage::Rewrite, "launch tuning: the winning variant's file was empty");
  return evaluate_late_child(index, std::move(tuned));
}

// The grid's fastest variant against the kernel it was tuned from, timed in turn for
// kConfirmRounds rounds in one process (the bridge's `compare` verb): the rounds' speedup
// (interleaved.h) when its 95% interval lies above 1, none otherwise. On the H100 the corpus's
// rounds put autotune-only 0.3% to 0.8% ahead of kernels tritondx had kept for missing
// --min-gain (destindex_copy_kv, rope, rms_norm; results/corpus, 2026-12-07).
constexpr int kConfirmRounds = 7;

std::optional<nlohmann::json> Search::confirm_small_gain(const SearchNode& base, const GridVariant& winner) {
  auto reply = bridge_.call("compare", {{"tasks", {base.path, winner.path}}, {"rounds", kConfirmRounds}});
  if (!reply) {
    r_.notes.push_back(fmt::format("launch tuning: the rounds confirming a gain of {} could not run: {}",
                                   winner.description, reply.error().diagnostic.to_string()));
    return std::nullopt;
  }
  const auto& tasks = reply->value("tasks", nlohmann::json::array());
  if (tasks.size() != 2) {
    r_.notes.push_back(fmt::format("launch tuning: the rounds confirming a gain of {} answered for {} kernels, not 2",
                                   winner.description, tasks.size()));
    return std::nullopt;
  }
  InterleavedSpeedup s = interleaved_speedup(tasks[0].value("round_ms", std::vector<double>{}),
                                             tasks[1].value("round_ms", std::vector<double>{}));
  r_.notes.push_back(fmt::format("launch tuning: {} over candidate {} in {} interleaved rounds: {:.4f}x, 95% interval "
                                 "[{:.4f}, {:.4f}]: {}",
                                 winner.description, base.id, s.rounds, s.median, s.ci_low, s.ci_high,
                                 s.ci_low > 1 ? "confirmed" : "not confirmed"));
  if (s.rounds == 0 || s.ci_low <= 1) return std::nullopt;
  return to_json(s);
}

Expected<void> Search::evaluate_late_child(size_t parent, Candidate candidate) {
  std::string sha = sha256_hex(candidate.source);
  if (std::find(seen_.begin(), seen_.end(), sha) != seen_.end()) return {};
  seen_.push_back(sha);
  const SearchNode& p = r_.nodes[parent];
  SearchNode child;
  child.parent = p.id;
  child.generation = p.generation + 1;
  child.candidate = std::move(candidate);
  child.candidate.diff = unified_diff(p.candidate.source, child.candidate.source, fs::path(r_.task_path).filename().string());
  child.id = TDX_TRY(store_->add_candidate(r_.run_id, child.parent, child.generation, child.candidate));
  const std::string parent_source = p.candidate.source;  // evaluate_node appends to r_.nodes
  TDX_TRY(evaluate_node(std::move(child), &parent_source, true));
  return {};
}

// The last step: the recipes that want the tuned launch (Recipe::after_tuning) are proposed from
// the best kernel's diagnosis once more and evaluated as its children. On the H100, tma-persistent
// on the bench's three tuned matmuls ran 1.06x to 1.09x faster
// (bench/results/logs/2026-12-05-h100-tma-recipe.txt); within the search's budget of 8 candidates
// their L2 finding was never reached.
Expected<void> Search::rewrite_after_tuning() {
  if (!r_.gpu || !o_.tune) return {};
  size_t best = best_index();
  if (r_.nodes[best].candidate.recipe != "launch-tune") return {};
  DiagnosisSession* session = TDX_TRY(session_for(best));
  std::vector<RewriteAttempt> attempts;
  for (const auto& ctx : session->contexts()) {
    std::vector<Finding> findings;
    for (const auto& f : r_.nodes[best].findings)
      if (f.kernel == ctx.kernel_name()) findings.push_back(f);
    RecipeRewriter recipes(recipes_);
    for (auto& a : recipes.propose(RewriteRequest{ctx, findings, constraints(ctx)})) {
      const Recipe* recipe = recipes_.find(a.recipe);
      if (recipe && recipe->after_tuning()) attempts.push_back(std::move(a));
    }
  }
  sessions_.erase(best);
  const long long parent_id = r_.nodes[best].id;
  for (auto& a : attempts) {
    if (!a.candidate) {
      record_attempt(parent_id, a, "declined", 0, a.candidate.error().message);
      note_once(fmt::format("recipe {} declined after tuning: {}", a.recipe, a.candidate.error().message));
      continue;
    }
    size_t before = r_.nodes.size();
    TDX_CHECK(evaluate_late_child(best, std::move(*a.candidate)));
    record_attempt(parent_id, a, r_.nodes.size() > before ? "evaluated" : "duplicate",
                   r_.nodes.size() > before ? r_.nodes.back().id : 0, "");
    if (r_.nodes.size() > before)
      r_.notes.push_back(fmt::format("candidate {}: {} tried on the tuned kernel {} after launch tuning",
                                     r_.nodes.back().id, a.recipe, parent_id));
  }
  return {};
}

}  // namespace tdx::search_detail
