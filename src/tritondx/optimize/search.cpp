#include "tritondx/optimize/search.h"
#include "tritondx/optimize/attempt_order.h"
#include "tritondx/optimize/search_impl.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tritondx/core/check.h"
#include "tritondx/ir/program.h"

#include "tritondx/ladder/rule.h"
#include "tritondx/measure/visible_gpu.h"
#include "tritondx/optimize/evaluation_costs.h"
#include "tritondx/optimize/launch_grid.h"
#include "tritondx/optimize/search_store.h"
#include "tritondx/rewrite/llm/llm_rewriter.h"
#include "tritondx/rewrite/recipe.h"
#include "tritondx/rewrite/recipe_rewriter.h"
#include "tritondx/rewrite/source_edit.h"
#include "tritondx/store/sha256.h"
#include "tritondx/store/store.h"

namespace tdx {

namespace fs = std::filesystem;

namespace search_detail {

namespace {

// The levels a proposal may come from, climbing as gains plateau: L0 (and L1 when measured),
// then L2, then L3.
constexpr Level kEscalation[] = {Level::L1, Level::L2, Level::L3};
static_assert(std::size(kEscalation) == kEscalationSteps);

// Findings this sure are confirmed by the compiler itself (its own remark, or a what-if recompile
// that removed the structure): they join the first expansion, whatever their level. The others
// wait until the search plateaus at the levels below.
constexpr double kConfirmed = 0.9;

double priority(const Finding& f) { return f.confidence * f.estimated_gain.value_or(1.05); }

// A node not expanded yet (or being expanded) whose diagnosis holds a compiler-confirmed finding
// proposing a built-in recipe: reaching near its roofline does not stop the search before that
// expansion is done. The what-if that confirmed the finding widened the accesses it names; the
// roofline fraction alone says nothing of that.
bool confirmed_rewrite_left(const SearchNode& n, bool being_expanded, const RecipeRegistry& recipes) {
  if (n.expanded_level >= 0 && !being_expanded) return false;
  return std::any_of(n.findings.begin(), n.findings.end(), [&](const Finding& f) {
    return f.confidence >= kConfirmed && std::any_of(f.proposals.begin(), f.proposals.end(), [&](const auto& p) {
             return recipes.find(p.recipe) != nullptr;
           });
  });
}

}  // namespace

std::string constraints(const KernelContext& ctx) {
  std::string out =
      "Keep the task's `launch` signature and return value, and keep computing the result with the "
      "task's own @triton.jit kernel(s): no PyTorch compute, no other libraries, no caching of outputs. "
      "`reference`, `make_inputs`, the tolerances and the FLOP/byte counts are fixed and must not change. ";
  if (ctx.tolerance.is_object() && !ctx.tolerance.empty())
    out += "Outputs must match the reference within the task's TOLERANCE " + ctx.tolerance.dump() + ". ";
  else
    out += "Outputs must match the reference within the default tolerance for their dtype. ";
  return out;
}

EvaluateOptions Search::eval_options(bool measure, bool candidate, bool profile, bool original) const {
  EvaluateOptions e;
  e.gpu = measure;
  e.profile = measure && profile && o_.profile;
  if (original) e.recording = o_.recording;
  e.gpu_optional = o_.gpu == GpuMode::Auto;
  e.original = candidate && original_task_ ? &*original_task_ : nullptr;
  if (candidate && !r_.nodes.empty()) e.initial_task = r_.nodes.front().path;
  e.target = o_.target;
  e.ladder.all_levels = true;  // a candidate is re-diagnosed at every level (its target may be at L3)
  return e;
}

Expected<size_t> Search::evaluate_node(SearchNode node, const std::string* parent_source, bool measure) {
  TDX_CHECK(store_->set_candidate_status(node.id, CandidateStatus::Evaluating));
  node.path = (candidates_dir_ / fmt::format("c{}.py", node.id)).string();
  {
    std::ofstream out(node.path);
    out << node.candidate.source;
    if (!out) return fail(Stage::Store, fmt::format("cannot write {}", node.path));
  }
  const Candidate* cand = node.candidate.rewriter == "original" ? nullptr : &node.candidate;
  std::unique_ptr<Bridge> own;
  if (cand) own = std::make_unique<Bridge>(bridge_.config());
  const double began = elapsed();
  Evaluation e = evaluate_task(own ? *own : bridge_, rules_, node.path, (artifacts_dir_ / fmt::format("c{}", node.id)).string(),
                               eval_options(measure, cand != nullptr, !cand, !cand), parent_source, cand);
  ++r_.evaluated;
  if (cand) costs_.candidates.push_back(elapsed() - began);
  else costs_.original = elapsed() - began;
  for (const auto& note : e.notes) note_once(fmt::format("candidate {}: {}", node.id, note));
  node.status = e.verdict;
  node.reject_stage = e.reject_stage;
  node.reject_reason = e.reject_reason;
  node.target_gone = e.target_gone;
  node.target_note = e.target_note;
  node.score = Score::of(e);
  node.evaluation = evaluation_to_json(e);
  node.evaluation["reject_kind"] = e.reject_kind;
  if (e.diagnosis)
    for (const auto& k : e.diagnosis->kernels) node.findings.insert(node.findings.end(), k.findings.begin(), k.findings.end());
  TDX_CHECK(record_evaluation(*store_, node, e));
  size_t index = r_.nodes.size();
  if (!cand && e.verified() && e.session) sessions_[index] = std::move(e.session);
  r_.nodes.push_back(std::move(node));
  report_progress(index);
  return index;
}

namespace {

std::string score_text(const Score& s) {
  if (s.measured) return fmt::format("{:.4f} ms", s.median_ms);
  if (s.static_seconds > 0) return fmt::format("static estimate {:.4f} ms (not measured)", s.static_seconds * 1e3);
  return "not measured";
}

}  // namespace

void Search::report_progress(size_t index) const {
  if (!o_.on_candidate) return;
  const SearchNode& n = r_.nodes[index];
  CandidateProgress p;
  p.id = n.id;
  p.recipe = n.candidate.rewriter == "original" ? "" : n.candidate.recipe;
  p.target_line = n.candidate.target_loc.line;
  p.status = n.status;
  if (n.status == "rejected") {
    std::string reason = n.reject_reason.substr(0, n.reject_reason.find('\n'));
    if (reason.size() > 160) reason = reason.substr(0, 157) + "...";
    p.result = fmt::format("{}: {}", n.reject_stage, reason);
  } else {
    p.result = score_text(n.score);
  }
  const SearchNode& best = r_.nodes[best_index()];
  p.best_id = best.id;
  p.best = speedup_text(r_.nodes.front().score, best.score);
  p.evaluated = static_cast<int>(r_.nodes.size()) - 1;
  p.max_candidates = o_.max_candidates;
  p.elapsed = elapsed();
  p.budget = o_.max_seconds + budget_from_;  // against p.elapsed, which counts the original's evaluation
  o_.on_candidate(p);
}

std::optional<size_t> Search::next_frontier() {
  while (true) {
    std::optional<size_t> best;
    bool climbable = false;
    for (size_t i = 0; i < r_.nodes.size(); ++i) {
      const auto& n = r_.nodes[i];
      if (n.status == "rejected" || n.generation >= o_.max_depth) continue;
      if (n.expanded_level + 1 < static_cast<int>(std::size(kEscalation))) climbable = true;
      if (n.expanded_level >= static_cast<int>(escalation_)) continue;
      // A rewrite made for others' sake (Recipe::enables) is judged by its children: expand it first.
      if (n.expanded_level < 0 && enables_others(n)) return i;
      if (!best || better(n.score, r_.nodes[*best].score)) best = i;
    }
    if (best || !climbable || escalation_ + 1 >= std::size(kEscalation)) return best;
    // Every node was expanded with this level's findings: climb, and expand them again with the next's.
    ++escalation_;
    r_.notes.push_back(fmt::format("every candidate was expanded with findings up to {}; now also using {} findings",
                                   level_name(kEscalation[escalation_ - 1]), level_name(kEscalation[escalation_])));
  }
}

bool Search::budget_left(std::string& why) const {
  int evaluated = static_cast<int>(r_.nodes.size()) - 1;  // the original is not a candidate
  if (evaluated >= o_.max_candidates) {
    why = fmt::format("the candidate budget is spent ({} evaluated)", evaluated);
    return false;
  }
  // Waiting for a GPU that other bench workers hold is their time, not this search's.
  double waited = this->waited();
  double elapsed = budget_spent();
  if (elapsed >= o_.max_seconds) {
    why = waited > 0.5 ? fmt::format("the time budget is spent ({:.0f} s, not counting {:.0f} s waiting for the "
                                     "shared GPU)", elapsed, waited)
                       : fmt::format("the time budget is spent ({:.0f} s)", elapsed);
    return false;
  }
  for (size_t i = 0; i < r_.nodes.size(); ++i) {
    const auto& n = r_.nodes[i];
    if (n.score.measured && n.score.roofline_fraction >= o_.near_roofline &&
        !confirmed_rewrite_left(n, expanding_ == i, recipes_)) {
      why = fmt::format("candidate {} reaches {:.0f}% of its roofline", n.id, 100 * n.score.roofline_fraction);
      return false;
    }
  }
  return true;
}

Expected<DiagnosisSession*> Search::session_for(size_t index) {
  if (auto it = sessions_.find(index); it != sessions_.end()) return it->second.get();
  // A candidate (or a node from an earlier invocation): diagnose it again, in a bridge of its
  // own (no GPU run: its score is stored).
  SearchNode& n = r_.nodes[index];
  if (!fs::exists(n.path)) std::ofstream(n.path) << n.candidate.source;
  expansion_bridge_ = std::make_unique<Bridge>(bridge_.config());
  // On a GPU, a node about to be expanded is measured and profiled again: its L1 findings (what
  // the hardware counters say) are what the proposals from its profile come from.
  bool profile = r_.gpu && o_.profile && n.score.measured;
  // A node the budget left cannot both profile and follow with a candidate is expanded from its
  // stored diagnosis: the candidate is worth more than the counters (matmul_bf16_square on the
  // H200 spent its last 25 s profiling its best node and evaluated nothing after it).
  if (profile && !costs_.affords_profile(budget_spent(), o_.max_seconds)) {
    profile = false;
    note_once(fmt::format("candidate {}: expanded from its stored diagnosis, without a new profile: the {:.0f} s left "
                          "of the time budget would not also pay for a candidate after it",
                          n.id, o_.max_seconds - budget_spent()));
  }
  EvaluateOptions options = eval_options(profile, false, profile, index == 0);
  // Unmeasured now, it is diagnosed with the config its autotuner chose when it was measured.
  if (n.evaluation.contains("measurement") && n.evaluation["measurement"].contains("autotune_choice"))
    options.autotune_config = n.evaluation["measurement"]["autotune_choice"];
  Evaluation e = evaluate_task(*expansion_bridge_, rules_, n.path, (artifacts_dir_ / fmt::format("c{}", n.id)).string(),
                               options, nullptr, nullptr);
  if (profile && (!e.session || !e.verified())) {
    // Measuring it again failed (the GPU, not the candidate, most likely: it passed before):
    // expand it from its stored diagnosis rather than stopping the search.
    note_once(fmt::format("candidate {}: measuring it again for its profile failed ({}); expanded without it", n.id,
                          e.reject_reason));
    expansion_bridge_ = std::make_unique<Bridge>(bridge_.config());
    EvaluateOptions stored = eval_options(false, false, false, index == 0);
    stored.autotune_config = options.autotune_config;
    e = evaluate_task(*expansion_bridge_, rules_, n.path, (artifacts_dir_ / fmt::format("c{}", n.id)).string(), stored,
                      nullptr, nullptr);
  }
  for (const auto& note : e.notes) note_once(fmt::format("candidate {}: {}", n.id, note));
  if (!e.session || !e.verified())
    return fail(Stage::Verify, fmt::format("candidate {} no longer compiles: {}", n.id, e.reject_reason));
  // Findings the node's first evaluation did not have (its profile's) join its diagnosis.
  std::vector<Finding> added;
  if (e.diagnosis)
    for (const auto& k : e.diagnosis->kernels)
      for (const auto& f : k.findings) {
        bool known = std::any_of(n.findings.begin(), n.findings.end(), [&](const Finding& g) {
          return g.rule_id == f.rule_id && g.kernel == f.kernel && g.loc.line == f.loc.line;
        });
        if (!known) added.push_back(f);
      }
  if (!added.empty()) {
    TDX_CHECK(store_->add_findings(n.id, added));
    n.findings.insert(n.findings.end(), added.begin(), added.end());
  }
  auto* s = e.session.get();
  sessions_[index] = std::move(e.session);
  return s;
}

Expected<void> Search::expand(size_t index) {
  expanding_ = index;
  struct Done {
    std::optional<size_t>& at;
    ~Done() { at.reset(); }
  } done{expanding_};
  if (const auto& n = r_.nodes[index]; n.score.measured && n.score.roofline_fraction >= o_.near_roofline)
    note_once(fmt::format("candidate {} reaches {:.0f}% of its roofline, but its diagnosis holds a compiler-confirmed "
                          "finding with a recipe to try: expanded once more",
                          n.id, 100 * n.score.roofline_fraction));
  DiagnosisSession* session = TDX_TRY(session_for(index));
  const Score parent_score = r_.nodes[index].score;
  const std::string parent_source = r_.nodes[index].candidate.source;
  const long long parent_id = r_.nodes[index].id;
  const int generation = r_.nodes[index].generation + 1;
  while (true) {
    r_.nodes[index].expanded_level = static_cast<int>(escalation_);
    Level up_to = kEscalation[escalation_];
    std::vector<RewriteAttempt> attempts;
    std::vector<std::vector<nlohmann::json>> calls;  // the LLM calls behind each attempt
    for (const auto& ctx : session->contexts()) {
      std::vector<Finding> findings;
      for (const auto& f : r_.nodes[index].findings)
        if (f.kernel == ctx.kernel_name() && (f.level <= up_to || f.confidence >= kConfirmed)) findings.push_back(f);
      std::stable_sort(findings.begin(), findings.end(),
                       [](const Finding& a, const Finding& b) { return priority(a) > priority(b); });
      RecipeRewriter recipes(recipes_);
      RewriteRequest request{ctx, findings, constraints(ctx)};
      if (o_.recipes)
        for (auto& a : recipes.propose(request)) {
          attempts.push_back(std::move(a));
          calls.emplace_back();
        }
      if (llm_ && !llm_asked_.contains(parent_id * 16 + static_cast<long long>(escalation_))) {
        llm_asked_.insert(parent_id * 16 + static_cast<long long>(escalation_));
        auto llm_attempts = llm_->propose(request);
        size_t first = attempts.size();
        for (auto& a : llm_attempts) {
          attempts.push_back(std::move(a));
          calls.emplace_back();
        }
        for (const auto& c : llm_->last_calls())
          if (first + c.attempt_index < calls.size()) calls[first + c.attempt_index].push_back(c.call);
      }
    }
    int fresh = 0;
    bool progressed = false;
    std::string why;
    std::vector<std::string_view> enabled;
    if (const Recipe* made = recipes_.find(r_.nodes[index].candidate.recipe)) enabled = made->enables();
    for (size_t ai : order_by_measured_gain(attempts, r_.nodes, o_.min_gain, enabled)) {
      auto& a = attempts[ai];
      // LLM calls are stored whatever came of them (tokens were spent); tied to the candidate
      // when there is one.
      auto store_calls = [&](std::optional<long long> candidate_id) -> Expected<void> {
        for (const auto& c : calls[ai]) TDX_CHECK(store_->add_llm_call(r_.run_id, candidate_id, c));
        return {};
      };
      if (!a.candidate) {
        TDX_CHECK(store_calls(std::nullopt));
        record_attempt(parent_id, a, "declined", 0, a.candidate.error().message);
        note_once(fmt::format("recipe {} declined ({}): {}", a.recipe, a.targets.empty() ? "" : a.targets.front(),
                              a.candidate.error().message));
        continue;
      }
      std::string sha = sha256_hex(a.candidate->source);
      if (std::find(seen_.begin(), seen_.end(), sha) != seen_.end()) {
        TDX_CHECK(store_calls(std::nullopt));
        record_attempt(parent_id, a, "duplicate", 0, "");
        continue;
      }
      if (!budget_left(why)) {
        TDX_CHECK(store_calls(std::nullopt));
        record_attempt(parent_id, a, "budget", 0, why);
        continue;
      }
      seen_.push_back(sha);
      ++fresh;
      SearchNode child;
      child.parent = parent_id;
      child.generation = generation;
      child.candidate = std::move(*a.candidate);
      child.candidate.diff = unified_diff(parent_source, child.candidate.source, fs::path(r_.task_path).filename().string());
      child.id = TDX_TRY(store_->add_candidate(r_.run_id, parent_id, generation, child.candidate));
      TDX_CHECK(store_calls(child.id));
      record_attempt(parent_id, a, "evaluated", child.id, "");
      size_t ci = TDX_TRY(evaluate_node(std::move(child), &parent_source, r_.gpu));
      if (r_.nodes[ci].status == "verified" && improves(r_.nodes[ci].score, parent_score, o_.min_gain))
        progressed = true;
    }
    if (progressed || escalation_ + 1 >= std::size(kEscalation) || !budget_left(why)) break;
    // Plateau: climb the ladder, so that proposals from the next level's findings are tried.
    ++escalation_;
    r_.notes.push_back(fmt::format("candidate {}: {} from findings up to {}; now also using {} findings", parent_id,
                                   fresh ? "no gain" : "no new proposals", level_name(up_to),
                                   level_name(kEscalation[escalation_])));
    if (fresh > 0) break;  // the next expansion starts at the higher level
  }
  sessions_.erase(index);
  nlohmann::json score = r_.nodes[index].score.to_json();
  score["expanded_level"] = r_.nodes[index].expanded_level;
  TDX_CHECK(store_->set_score(parent_id, score));
  return {};
}

void Search::record_attempt(long long parent, const RewriteAttempt& a, const std::string& outcome, long long candidate,
                            const std::string& reason) {
  for (size_t t = 0; t < std::max<size_t>(1, a.targets.size()); ++t)
    r_.attempts.push_back({parent, t < a.targets.size() ? a.targets[t] : "",
                           t < a.target_lines.size() ? a.target_lines[t] : 0, a.rewriter, a.recipe, outcome, candidate,
                           reason});
}

// A launch-tune candidate whose gain under --min-gain interleaved rounds confirmed
// (Search::confirm_small_gain): the rounds stand in for the margin.
static bool confirmed_in_rounds(const SearchNode& n) {
  const auto& i = n.candidate.params.value("interleaved", nlohmann::json());
  return i.is_object() && i.value("ci95", nlohmann::json()).is_array() && i["ci95"].size() == 2 &&
         i["ci95"][0].get<double>() > 1;
}

size_t Search::best_index() const {
  size_t best = 0;
  for (size_t i = 1; i < r_.nodes.size(); ++i)
    if (r_.nodes[i].status != "rejected" && better(r_.nodes[i].score, r_.nodes[best].score) &&
        (improves(r_.nodes[i].score, r_.nodes[0].score, o_.min_gain) || confirmed_in_rounds(r_.nodes[i])))
      best = i;
  return best;
}

std::vector<size_t> Search::line_of(size_t index) const {
  std::vector<size_t> line;
  for (std::optional<size_t> at = index; at;) {
    line.push_back(*at);
    long long parent = r_.nodes[*at].parent;
    at.reset();
    for (size_t i = 0; i < r_.nodes.size() && parent; ++i)
      if (r_.nodes[i].id == parent) at = i;
  }
  return line;
}

Expected<void> Search::finish() {
  size_t best = best_index();
  r_.best = best;
  // Compiler-confirmed findings are used before the escalation reaches their level, so the
  // reach also counts the findings the evaluated candidates targeted.
  Level reach = kEscalation[escalation_];
  for (const auto& child : r_.nodes)
    for (const auto& parent : r_.nodes)
      if (child.parent != 0 && parent.id == child.parent)
        for (const auto& f : parent.findings)
          if (std::find(child.candidate.targets.begin(), child.candidate.targets.end(), f.rule_id) !=
              child.candidate.targets.end())
            reach = std::max(reach, f.level);
  r_.ladder_reach = std::string(level_name(reach));
  std::vector<size_t> path = line_of(best);
  std::reverse(path.begin(), path.end());
  r_.best_path = path;
  for (size_t i : path) {
    auto& n = r_.nodes[i];
    if (i == 0 && best != 0) continue;  // the original stays "verified" unless nothing beat it
    n.status = i == best ? "best" : "accepted";
    TDX_CHECK(store_->set_candidate_status(n.id, i == best ? CandidateStatus::Best : CandidateStatus::Accepted));
  }
  r_.llm_usage = [&]() -> nlohmann::json {
    auto u = store_->llm_usage(r_.run_id);
    if (!u) return nullptr;
    return {{"calls", u->calls}, {"failed_calls", u->failed_calls}, {"prompt_tokens", u->prompt_tokens},
            {"completion_tokens", u->completion_tokens}, {"cost_usd", u->cost_usd}};
  }();
  r_.actionability = tdx::actionability(r_, recipes_);
  TDX_CHECK(store_->finish_run(r_.run_id, RunStatus::Finished));
  return {};
}

Expected<OptimizeResult> Search::run() {
  TDX_CHECK(setup());
  if (auto started = start_or_resume(); !started) {
    // Cut while starting (the store, the bridge): what was evaluated is kept, and says so only
    // when --resume can continue it (not for a rejected original or a refused resume).
    Diagnostic error = started.error();
    if (r_.run_id)
      if (auto record = store_->run(r_.run_id);
          record && (record->status == RunStatus::Running || record->status == RunStatus::Interrupted)) {
        (void)store_->finish_run(r_.run_id, RunStatus::Interrupted);
        error.message += fmt::format(" (run {} stays in {}; `--resume` continues it)", r_.run_id, r_.store_path);
      }
    return std::unexpected(error);
  }
  std::string why;
  while (true) {
    if (!budget_left(why)) break;
    auto next = next_frontier();
    if (!next) {
      why = "no candidate is left to expand (every proposal was tried)";
      break;
    }
    if (auto ok = expand(*next); !ok) {
      // A failure while expanding (the store, a vanished file) stops the search; what is done stays.
      r_.notes.push_back("search stopped: " + ok.error().to_string());
      why = "stopped on an error: " + ok.error().to_string();
      break;
    }
  }
  r_.stop_reason = why;
  if (why.rfind("stopped on an error", 0) != 0) {
    if (auto t = tune_launch(); !t) r_.notes.push_back("launch tuning stopped: " + t.error().to_string());
    else if (auto a = rewrite_after_tuning(); !a)
      r_.notes.push_back("rewrites after tuning stopped: " + a.error().to_string());
  }
  if (double waited = this->waited(); waited > 0.5)
    r_.notes.push_back(fmt::format("{:.0f} s of this run waited for the GPU while other bench workers timed their "
                                   "kernels (TRITONDX_GPU_LOCK); the time budget does not count them",
                                   waited));
  TDX_CHECK(finish());
  r_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return std::move(r_);
}

}  // namespace search_detail

const Finding* targeted_finding(const SearchNode& parent, const SearchNode& child) {
  for (const auto& f : parent.findings)
    for (const auto& t : child.candidate.targets)
      if (f.rule_id == t && f.loc.line == child.candidate.target_loc.line) return &f;
  return nullptr;
}

Expected<OptimizeResult> optimize(const Bridge& bridge, const OptimizeOptions& options) {
  search_detail::Search search(bridge, options);
  return search.run();
}

}  // namespace tdx
