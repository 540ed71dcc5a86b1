#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "tritondx/core/check.h"
#include "tritondx/measure/visible_gpu.h"
#include "tritondx/optimize/search_impl.h"
#include "tritondx/optimize/search_store.h"
#include "tritondx/store/sha256.h"

// Opening a run: the output folders, the store and the LLM client; the original kernel's
// evaluation, or a resumed run's state (on the card it was measured on).
namespace tdx::search_detail {

namespace fs = std::filesystem;

Expected<void> Search::setup() {
  fs::path task = fs::absolute(o_.task_path);
  if (!fs::exists(task)) return fail(Stage::Task, fmt::format("task file not found: {}", o_.task_path));
  r_.task_path = task.string();
  // The text as the bridge reads it (every candidate is derived from that text), parsed once for
  // the integrity checks.
  auto original = integrity::load_task_source(bridge_, r_.task_path);
  if (!original) return std::unexpected(original.error());
  original_task_ = std::move(*original);
  original_source_ = original_task_->source;
  task_sha_ = sha256_hex(original_source_);
  fs::path out = o_.out_dir.empty() ? default_out_dir(task) : fs::path(o_.out_dir);
  r_.out_dir = out.string();
  r_.store_path = o_.store_path.empty() ? (out / "store.sqlite").string() : o_.store_path;
  candidates_dir_ = out / "candidates";
  artifacts_dir_ = out / "artifacts";
  std::error_code ec;
  fs::create_directories(candidates_dir_, ec);
  if (ec) return fail(Stage::Store, fmt::format("cannot create {}: {}", candidates_dir_.string(), ec.message()));
  fs::create_directories(fs::path(r_.store_path).parent_path(), ec);
  if (!o_.recipes && !o_.llm)
    return fail(Stage::Task, "--no-recipes leaves nothing to propose candidates: add --llm (docs/llm.md)");
  // Without recipes, the escalation (the cheap levels' recipes first) has nothing to try
  // before the top level: the LLM gets every finding at its first call.
  if (!o_.recipes) escalation_ = kFullyExpanded;
  if (o_.llm) {
    auto config = load_llm_config(o_.llm_config);
    if (!config) return std::unexpected(config.error());
    llm_bridge_ = std::make_unique<Bridge>(bridge_.config());  // replies are imported there, not here
    LlmRewriterOptions llm_options;
    llm_options.attempts = o_.llm_attempts;
    llm_options.prompt.evidence = prompt_evidence_from_name(o_.llm_evidence).value_or(PromptEvidence::Full);
    llm_ = std::make_unique<LlmRewriter>(std::move(*config), *llm_bridge_, llm_options);
  }
  auto store = Store::open(r_.store_path);
  if (!store) return std::unexpected(store.error());
  store_.emplace(std::move(*store));
  return {};
}

// Evaluates a node (already in the store), records everything, and appends it to the result.

Expected<void> Search::start_or_resume() {
  if (o_.resume) {
    auto run = TDX_TRY(store_->latest_unfinished_run(task_sha_, ""));
    if (!run) return fail(Stage::Store, fmt::format("--resume: {} holds no unfinished run of this task", r_.store_path));
    if (!run->info.device.empty()) {  // checked before resume_state() reopens the run
      const std::string why = card_change(run->info.device, TDX_TRY(visible_gpu(bridge_)));
      if (!why.empty())
        return fail(Stage::Store, fmt::format("--resume: run {} of this task in {} cannot go on here: {}. Start a new "
                                              "run (leave out --resume), or resume it on that card",
                                              run->id, r_.store_path, why));
    }
    auto state = TDX_TRY(store_->resume_state(run->id));
    r_.run_id = run->id;
    r_.resumed = true;
    // A run cut short while its original was evaluated has no device yet: it is measured now
    // when it asked for a GPU.
    const bool original_pending = std::none_of(state.finished.begin(), state.finished.end(),
                                               [](const CandidateRecord& c) { return c.parent_id == std::nullopt; });
    r_.gpu = !state.run.info.device.empty() || (original_pending && o_.gpu != GpuMode::Off);
    for (const auto& rec : state.finished) {
      SearchNode n = node_from_record(rec);
      n.path = (candidates_dir_ / fmt::format("c{}.py", n.id)).string();
      n.findings = TDX_TRY(store_->findings(n.id));
      seen_.push_back(rec.source_sha256);
      r_.nodes.push_back(std::move(n));
    }
    r_.notes.push_back(fmt::format("resumed run {}: {} candidate(s) kept, {} in flight evaluated again", run->id,
                                   state.finished.size(), state.redo.size()));
    // The initial kernel's frozen copy, which candidates are verified against.
    if (!r_.nodes.empty() && r_.nodes.front().candidate.rewriter == "original" && !fs::exists(r_.nodes.front().path)) {
      std::ofstream out(r_.nodes.front().path);
      out << r_.nodes.front().candidate.source;
      if (!out) return fail(Stage::Store, fmt::format("cannot write {}", r_.nodes.front().path));
    }
    for (const auto& rec : state.redo) {
      SearchNode n = node_from_record(rec);
      const std::string* parent = nullptr;
      for (const auto& p : r_.nodes)
        if (p.id == n.parent) parent = &p.candidate.source;
      seen_.push_back(rec.source_sha256);
      TDX_TRY(evaluate_node(std::move(n), parent, r_.gpu));
    }
    if (r_.nodes.empty() || r_.nodes.front().candidate.rewriter != "original")
      return fail(Stage::Store, "--resume: the run has no evaluated original kernel");
    if (original_pending) return settle_original();
    if (r_.nodes.front().status == "rejected")
      return fail(Stage::Verify, "the original kernel was rejected: " + r_.nodes.front().reject_reason);
    return {};
  }
  RunInfo info;
  info.task_path = r_.task_path;
  info.task_sha256 = task_sha_;
  info.options = options_to_json(o_);
  info.target = o_.target;
  r_.run_id = TDX_TRY(store_->begin_run(info));
  SearchNode original;
  original.candidate.source = original_source_;
  original.candidate.rewriter = "original";
  original.candidate.description = "the kernel as given";
  original.id = TDX_TRY(store_->add_candidate(r_.run_id, std::nullopt, 0, original.candidate));
  seen_.push_back(task_sha_);
  r_.gpu = o_.gpu != GpuMode::Off;
  TDX_TRY(evaluate_node(std::move(original), nullptr, r_.gpu));
  return settle_original();
}

Expected<void> Search::settle_original() {
  budget_from_ = elapsed();
  if (r_.gpu && !r_.nodes.front().score.measured && r_.nodes.front().evaluation.value("gpu_missing", false)) {
    r_.gpu = false;
    r_.notes.push_back("no GPU visible: candidates are compiled and re-diagnosed, but correctness and timing are "
                       "not measured; the best candidate is chosen by the static cost model and the findings it removes");
  }
  if (r_.gpu && r_.nodes.front().status != "rejected")
    TDX_CHECK(set_run_device(*store_, r_.run_id, r_.nodes.front().evaluation["measurement"].value("device", "")));
  if (r_.nodes.front().status == "rejected") {
    const auto& o = r_.nodes.front();
    TDX_CHECK(store_->finish_run(r_.run_id, RunStatus::Failed));
    // The original is evaluated from its copy in candidates/; the user knows it by the task's path.
    std::string reason = o.reject_reason;
    for (size_t at = reason.find(o.path); !o.path.empty() && at != std::string::npos;
         at = reason.find(o.path, at + r_.task_path.size()))
      reason.replace(at, o.path.size(), r_.task_path);
    return fail(Stage::Verify, fmt::format("the original kernel cannot be optimized: {} failed: {}", o.reject_stage,
                                           reason));
  }
  const auto& measurement = r_.nodes.front().evaluation.value("measurement", nlohmann::json::object());
  if (const std::string note = measurement.value("shapes_note", ""); !note.empty())
    r_.notes.push_back("candidates are " + note + " (give the task a make_test_inputs(device) returning a list of "
                       "input tuples: small, odd and degenerate shapes)");
  else if (const int shapes = measurement.value("test_inputs", 0); shapes > 0)
    r_.notes.push_back(fmt::format("candidates are checked at make_inputs' shapes and at {} test input tuple{}",
                                   shapes, shapes == 1 ? "" : "s"));
  return {};
}

}  // namespace tdx::search_detail
