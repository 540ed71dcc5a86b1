#include "tritondx/optimize/optimize_report.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "tritondx/core/check.h"

#include "tritondx/report/optimize_html.h"
#include "tritondx/report/tune_seconds.h"

namespace tdx {

namespace fs = std::filesystem;

namespace {

const SearchNode* node_by_id(const OptimizeResult& r, long long id) {
  for (const auto& n : r.nodes)
    if (n.id == id) return &n;
  return nullptr;
}

std::string time_text(const Score& s) {
  if (s.measured) return fmt::format("{:.4f} ms (p10 {:.4f}, p90 {:.4f}, {} reps)", s.median_ms, s.p10_ms, s.p90_ms, s.reps);
  if (s.static_seconds > 0) return fmt::format("not measured (static estimate {:.4f} ms)", s.static_seconds * 1e3);
  return "not measured";
}

nlohmann::json attempts_to_json(const std::vector<AttemptRecord>& attempts) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : attempts) {
    nlohmann::json j{{"parent", a.parent}, {"rule", a.rule},       {"line", a.line},
                     {"rewriter", a.rewriter}, {"recipe", a.recipe}, {"outcome", a.outcome}};
    if (a.candidate) j["candidate"] = a.candidate;
    if (!a.reason.empty()) j["reason"] = a.reason;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json node_json(const OptimizeResult& r, const SearchNode& n) {
  nlohmann::json j{{"id", n.id},
                   {"parent", n.parent ? nlohmann::json(n.parent) : nlohmann::json()},
                   {"generation", n.generation},
                   {"rewriter", n.candidate.rewriter},
                   {"recipe", n.candidate.recipe},
                   {"targets", n.candidate.targets},
                   {"target_line", n.candidate.target_loc.line},
                   {"description", n.candidate.description},
                   {"status", n.status},
                   {"score", n.score.to_json()},
                   {"path", n.path},
                   {"diff", n.candidate.diff},
                   {"findings", n.findings.size()}};
  if (!n.reject_stage.empty()) j["reject"] = {{"stage", n.reject_stage}, {"reason", n.reject_reason}};
  if (n.target_gone) j["target_gone"] = {{"gone", *n.target_gone}, {"note", n.target_note}};
  if (const SearchNode* p = n.parent ? node_by_id(r, n.parent) : nullptr)
    if (const Finding* f = targeted_finding(*p, n)) j["targeted_finding"] = *f;
  return j;
}

std::string evidence_markdown(const Finding& f) {
  std::string out;
  for (const auto& e : f.evidence) {
    out += fmt::format("  - **{}**{}: {}", stage_name(e.stage), e.loc.line ? fmt::format(" (line {})", e.loc.line) : "",
                       e.note);
    if (!e.quote.empty()) out += fmt::format(" — `{}`", e.quote.size() > 160 ? e.quote.substr(0, 157) + "..." : e.quote);
    out += "\n";
  }
  return out;
}

}  // namespace

// What the kept kernel's outputs were compared with (a task without `reference` is verified
// against its initial kernel alone).
static std::string verified_against(const SearchNode& n) {
  std::string out;
  if (n.evaluation.contains("measurement"))
    for (const auto& r : n.evaluation["measurement"].value("references", nlohmann::json::array()))
      out += (out.empty() ? "" : " and ") + r.get<std::string>();
  if (out == "the initial kernel")
    return "the initial kernel (a frozen copy of the task as the run found it; the task has no `reference`)";
  return out.empty() ? "nothing but itself: the task has no `reference`, and this is the initial kernel (it ran, and "
                       "repeated its results)"
                     : out;
}

nlohmann::json optimize_to_json(const OptimizeResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : r.nodes) nodes.push_back(node_json(r, n));
  nlohmann::json path = nlohmann::json::array();
  for (size_t i : r.best_path) path.push_back(r.nodes[i].id);
  const auto& o = r.nodes.front().score;
  const auto& b = r.nodes[r.best].score;
  nlohmann::json measured_on;
  if (const auto& e = r.nodes.front().evaluation; r.gpu && e.contains("measurement") && e["measurement"].is_object())
    if (auto d = e["measurement"].find("device"); d != e["measurement"].end() && d->is_string()) measured_on = *d;
  return {{"task", r.task_path},
          {"device", measured_on},
          {"verified_against", r.gpu ? nlohmann::json(verified_against(r.nodes[r.best])) : nlohmann::json()},
          {"out_dir", r.out_dir},
          {"store", r.store_path},
          {"run_id", r.run_id},
          {"gpu", r.gpu},
          {"resumed", r.resumed},
          {"stop_reason", r.stop_reason},
          {"ladder_reach", r.ladder_reach},
          {"seconds", r.seconds},
          {"evaluated", r.evaluated},
          {"original", r.nodes.front().id},
          {"best", r.nodes[r.best].id},
          {"best_path", path},
          {"speedup", b.measured && o.measured && b.median_ms > 0 ? nlohmann::json(o.median_ms / b.median_ms) : nlohmann::json()},
          {"candidates", nodes},
          {"notes", r.notes},
          {"tune", r.tune},
          {"tune_rival", r.tune_rival},
          {"tune_evaluations", r.tune_evaluations},
          {"llm_usage", r.llm_usage},
          {"attempts", attempts_to_json(r.attempts)},
          {"actionability", actionability_to_json(r.actionability)}};
}

std::string render_optimize_markdown(const OptimizeResult& r) {
  const SearchNode& orig = r.nodes.front();
  const SearchNode& best = r.nodes[r.best];
  std::string md = fmt::format("# tritondx optimize: {}\n\n", fs::path(r.task_path).filename().string());
  md += fmt::format("- Task: `{}`\n- Store: `{}` (run {}){}\n", r.task_path, r.store_path, r.run_id,
                    r.resumed ? ", resumed" : "");
  md += r.gpu ? fmt::format("- Measured on: {}\n", orig.evaluation.contains("measurement")
                                                        ? orig.evaluation["measurement"].value("device", "a GPU")
                                                        : "a GPU")
              : "- **No GPU**: correctness and timing were not measured. Candidates were compiled and re-diagnosed; "
                "the best is chosen by the static cost model and the findings it removes.\n";
  if (r.gpu) md += "- Verified against: " + verified_against(best) + "\n";
  md += fmt::format("- Candidates evaluated: {} in {:.1f} s; stopped because {}\n\n", r.nodes.size() - 1, r.seconds,
                    r.stop_reason);
  md += "| | kernel | time | speedup |\n|---|---|---|---|\n";
  md += fmt::format("| original | candidate {} | {} | 1.00x |\n", orig.id, time_text(orig.score));
  md += fmt::format("| best | candidate {} | {} | {} |\n\n", best.id, time_text(best.score),
                    r.best == 0 ? "1.00x (nothing beat the original)" : speedup_text(orig.score, best.score));

  md += "## Accepted rewrites\n\n";
  if (r.best_path.size() <= 1) md += "None: no candidate beat the original.\n\n";
  for (size_t k = 1; k < r.best_path.size(); ++k) {
    const SearchNode& n = r.nodes[r.best_path[k]];
    const SearchNode& p = r.nodes[r.best_path[k - 1]];
    if (n.candidate.recipe == "launch-tune") {
      md += fmt::format("### {}. `launch-tune` (candidate {})\n\n", k, n.id);
      md += fmt::format("- **Why**: not a diagnosis; the last stage of the search tries a grid over the launch "
                        "parameters (block sizes, num_warps, num_stages) of candidate {} and keeps the fastest "
                        "variant (see Launch tuning below)\n", p.id);
    } else {
      md += fmt::format("### {}. `{}` on line {} (candidate {})\n\n", k, n.candidate.recipe, n.candidate.target_loc.line, n.id);
    }
    if (const Finding* f = targeted_finding(p, n)) {
      md += fmt::format("- **Symptom** ({} `{}`, confidence {:.2f}{}): {}\n", level_name(f->level), f->rule_id,
                        f->confidence, f->estimated_gain ? fmt::format(", estimated gain {:.2f}x", *f->estimated_gain) : "",
                        f->symptom);
      md += "- **Evidence**:\n" + evidence_markdown(*f);
      md += fmt::format("- **Cause**: {}\n", f->cause);
    }
    md += fmt::format("- **Rewrite**: {}\n", n.candidate.description);
    if (n.target_gone) md += fmt::format("- **Target {}**: {}\n", *n.target_gone ? "gone" : "still there", n.target_note);
    md += fmt::format("- **Result**: {} → {} ({})\n\n", time_text(p.score), time_text(n.score), speedup_text(p.score, n.score));
    md += "```diff\n" + n.candidate.diff + "```\n\n";
  }

  md += "## Other candidates\n\n| id | parent | recipe | target | status | result |\n|---|---|---|---|---|---|\n";
  for (const auto& n : r.nodes) {
    if (n.candidate.rewriter == "original" || n.status == "accepted" || n.status == "best") continue;
    std::string targets;
    for (const auto& t : n.candidate.targets) targets += (targets.empty() ? "" : ", ") + t;
    std::string result = n.status == "rejected"
                             ? fmt::format("{}: {}", n.reject_stage, n.reject_reason)
                             : fmt::format("{}; {}", time_text(n.score),
                                           n.target_gone ? (*n.target_gone ? "target gone" : "target still there") : "");
    for (auto& c : result)
      if (c == '\n' || c == '|') c = ' ';
    const int line = n.candidate.target_loc.line;  // 0: no finding targeted (launch-tune)
    md += fmt::format("| {} | {} | `{}` | {}{} | {} | {} |\n", n.id, n.parent, n.candidate.recipe, targets,
                      line ? fmt::format(" (line {})", line) : "", n.status,
                      result.size() > 300 ? result.substr(0, 297) + "..." : result);
  }
  auto tune_section = [&](const nlohmann::json& tune, const std::string& title, const std::string& which) {
    if (!tune.is_object()) return;
    md += fmt::format("\n## {}\n\nA grid on {} {} ({}), each variant run with the same checks and timing in one "
                      "bridge process:\n\n| variant | time | wall time of its checks and timing |\n|---|---|---|\n",
                      title, which, tune.value("from_candidate", 0LL),
                      fmt::format("{:.4f} ms as given", tune.value("base_ms", 0.0)));
    for (const auto& v : tune.value("variants", nlohmann::json::array()))
      md += fmt::format("| {} | {} | {} |\n", v.value("config", ""),
                        v.contains("median_ms") ? fmt::format("{:.4f} ms", v["median_ms"].get<double>()) : v.value("error", "not run"),
                        tune_variant_seconds(v));
  };
  tune_section(r.tune, "Launch tuning", "candidate");
  tune_section(r.tune_rival, "Launch tuning of the rival",
               "the best kernel's rival (the fastest candidate off its line, or, when it is the kernel as given, "
               "a rewrite its diagnosis expected a gain from, within 5% of it), candidate");
  if (r.tune.is_object() || r.tune_rival.is_object()) {
    double wall_s = 0;
    for (const auto* t : {&r.tune, &r.tune_rival})
      if (t->is_object()) wall_s += t->value("wall_s", 0.0);
    md += fmt::format("\nLaunch tuning ran {} variants on the GPU{}.\n", r.tune_evaluations,
                      wall_s > 0 ? fmt::format(" in {:.1f} s", wall_s) : "");
  }
  if (!r.notes.empty()) {
    md += "\n## Notes\n\n";
    for (const auto& note : r.notes) md += "- " + note + "\n";
  }
  if (r.llm_usage.is_object() && r.llm_usage.value("calls", 0) > 0)
    md += fmt::format("\nLLM: {} call(s), {} failed, {} prompt + {} completion tokens, ${:.4f}\n", r.llm_usage.value("calls", 0),
                      r.llm_usage.value("failed_calls", 0), r.llm_usage.value("prompt_tokens", 0),
                      r.llm_usage.value("completion_tokens", 0), r.llm_usage.value("cost_usd", 0.0));
  return md;
}

std::string render_optimize_text(const OptimizeResult& r) {
  const SearchNode& orig = r.nodes.front();
  const SearchNode& best = r.nodes[r.best];
  std::string out = fmt::format("optimize {}: {} candidate(s) evaluated in {:.1f} s ({})\n", r.task_path,
                                r.nodes.size() - 1, r.seconds, r.stop_reason);
  if (!r.gpu) out += "no GPU: correctness and timing not measured (static cost model and findings only)\n";
  out += fmt::format("  original  candidate {:>3}: {}\n", orig.id, time_text(orig.score));
  out += fmt::format("  best      candidate {:>3}: {}  [{}]\n", best.id, time_text(best.score),
                     r.best == 0 ? "the original" : speedup_text(orig.score, best.score));
  for (size_t k = 1; k < r.best_path.size(); ++k) {
    const SearchNode& n = r.nodes[r.best_path[k]];
    out += fmt::format("  step {}: {} on line {} ({})\n", k, n.candidate.recipe, n.candidate.target_loc.line,
                       n.candidate.description);
  }
  int rejected = 0;
  for (const auto& n : r.nodes) rejected += n.status == "rejected";
  out += fmt::format("  {} candidate(s) rejected; see the report\n", rejected);
  return out;
}

Expected<std::vector<std::string>> write_optimize_outputs(const OptimizeResult& r) {
  fs::path dir(r.out_dir);
  std::vector<std::string> written;
  auto write = [&](const fs::path& p, const std::string& text) -> Expected<void> {
    std::ofstream out(p);
    out << text;
    if (!out) return fail(Stage::Store, fmt::format("cannot write {}", p.string()));
    written.push_back(p.string());
    return {};
  };
  TDX_CHECK(write(dir / (fs::path(r.task_path).stem().string() + ".optimized.py"), r.nodes[r.best].candidate.source));
  TDX_CHECK(write(dir / "report.md", render_optimize_markdown(r)));
  const nlohmann::json report = optimize_to_json(r);
  TDX_CHECK(write(dir / "report.json", report.dump(2) + "\n"));
  TDX_CHECK(write(dir / "report.html", render_optimize_html(report)));
  return written;
}

}  // namespace tdx
