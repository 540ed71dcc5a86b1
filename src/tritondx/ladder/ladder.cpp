#include "tritondx/ladder/ladder.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace tdx {

double explained_gain(const std::vector<Finding>& findings, double min_confidence) {
  std::map<std::pair<std::string, int>, double> best;
  for (const auto& f : findings) {
    if (!f.estimated_gain || f.confidence < min_confidence || *f.estimated_gain <= 1) continue;
    auto& b = best[{f.kernel, f.loc.line}];
    b = std::max(b, *f.estimated_gain);
  }
  double product = 1;
  for (const auto& [_, g] : best) product *= g;
  return product;
}

namespace {

bool disabled(const LadderOptions& o, std::string_view id) {
  return std::find(o.disabled_rules.begin(), o.disabled_rules.end(), id) != o.disabled_rules.end();
}

struct LevelRunner {
  DiagnosisSession& session;
  const RuleRegistry& registry;
  const LadderOptions& options;
  Diagnosis& out;

  LevelStep run(Level level) {
    LevelStep step;
    step.level = level;
    step.ran = true;
    auto contexts = session.contexts();
    for (const Rule* rule : registry.at_level(level)) {
      if (disabled(options, rule->id())) {
        out.skipped.push_back(fmt::format("{}: disabled", rule->id()));
        continue;
      }
      auto needs = rule->needs();
      if ((needs.program && !session.compiled()) || (needs.pass_dumps && !session.has_pass_dumps())) {
        out.skipped.push_back(fmt::format("{}: needs the compiled kernel", rule->id()));
        continue;
      }
      ++step.rules_run;
      for (size_t k = 0; k < contexts.size(); ++k) {
        if (needs.program && !contexts[k].program) continue;
        auto findings = DiagnosisSession::run_rule(*rule, contexts[k], out.rule_failures);
        step.findings += static_cast<int>(findings.size());
        auto& kd = out.kernels[k].findings;
        kd.insert(kd.end(), std::make_move_iterator(findings.begin()), std::make_move_iterator(findings.end()));
      }
    }
    return step;
  }

  // Explained and gap of the worst kernel; true when every kernel's gap is explained.
  bool explained(LevelStep& step) {
    bool all = true;
    double worst_ratio = 1e300;
    for (auto& k : out.kernels) {
      k.explained = explained_gain(k.findings, options.min_confidence);
      // Measured on a GPU, the roofline fraction replaces the static estimate.
      double gap = k.cost ? k.cost->gap : 1;
      if (const auto& r = session.roofline(); r && r->fraction > 0) gap = 1.0 / r->fraction;
      double ratio = k.explained / std::max(gap, 1.0);
      if (ratio < worst_ratio) {
        worst_ratio = ratio;
        step.explained = k.explained;
        step.gap = gap;
      }
      bool ok = gap <= options.near_roofline || k.explained >= options.explain_fraction * gap;
      all = all && ok;
    }
    return all;
  }
};

std::string describe(const LevelStep& s) {
  return fmt::format("gap {:.2f}x, explained {:.2f}x", s.gap, s.explained);
}

}  // namespace

Diagnosis run_ladder(DiagnosisSession& session, const RuleRegistry& registry, const LadderOptions& options) {
  auto start = std::chrono::steady_clock::now();
  Diagnosis out;
  out.task_path = session.task().path;
  out.target = session.target().card;
  for (const auto& k : session.kernels()) out.kernels.push_back(KernelDiagnosis{k.launch.kernel, {}, {}, 1});
  out.problems = session.capture_notes();
  LevelRunner runner{session, registry, options, out};

  LevelStep l0 = runner.run(Level::L0);
  out.reached = Level::L0;

  // The gap needs the compiled code (static model); L2/L3 need it too.
  bool want_compile = options.max_level >= 2 || options.all_levels;
  if (want_compile) {
    bool pass_dumps = options.max_level >= 3 || options.all_levels;
    if (const auto& error = session.compile(pass_dumps)) {
      out.compile_error = error;
      l0.decision = "stopped: the kernel does not compile, so L2/L3 cannot run (L0 findings kept)";
      out.steps.push_back(l0);
      out.stop_reason = l0.decision;
      out.seconds = session.open_seconds() + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      out.bridge_seconds = session.bridge_seconds();
      return out;
    }
    for (size_t i = 0; i < session.kernels().size(); ++i) {
      const auto& k = session.kernels()[i];
      if (!k.program) continue;
      out.kernels[i].cost = estimate_static_cost(*k.program, *k.summary, k.launch, session.target(),
                                                 session.min_bytes(), session.flops());
      for (const auto& d : k.program->problems) out.problems.push_back(d.to_string());
    }
  }

  bool done = runner.explained(l0);
  auto climb_or_stop = [&](LevelStep& step, int next_level) {
    if (next_level > options.max_level) {
      step.decision = fmt::format("stopped: --max-level {} reached ({})", options.max_level, describe(step));
      return false;
    }
    if (done && !options.all_levels) {
      step.decision = step.gap <= options.near_roofline
                          ? fmt::format("stopped: the static estimate puts the kernel within {:.0f}% of its roofline floor",
                                        (options.near_roofline - 1) * 100)
                          : fmt::format("stopped: the findings explain the gap ({})", describe(step));
      return false;
    }
    step.decision = options.all_levels && done
                        ? fmt::format("climbed: --all-levels ({})", describe(step))
                        : fmt::format("climbed: the findings do not explain the gap ({})", describe(step));
    return true;
  };

  if (!want_compile) {
    l0.decision = fmt::format("stopped: --max-level {} (no compile, no roofline estimate)", options.max_level);
    out.steps.push_back(l0);
    out.stop_reason = l0.decision;
  } else {
    bool climb = true;
    if (session.measurement()) {
      // With a GPU measurement, L1 runs right after L0: it says how far from the roofline the
      // kernel really is and where its time goes, so L2/L3 can start from the hot lines.
      l0.decision = "climbed: L1 measurements available";
      out.steps.push_back(l0);
      LevelStep l1 = runner.run(Level::L1);
      out.reached = Level::L1;
      done = runner.explained(l1);
      climb = climb_or_stop(l1, 2);
      out.steps.push_back(l1);
    } else {
      climb = climb_or_stop(l0, 2);
      out.steps.push_back(l0);
      LevelStep l1;
      l1.level = Level::L1;
      l1.decision = "skipped: no GPU measurement (`diagnose --profile` on a GPU, or --recording); the gap is the "
                    "static estimate";
      if (climb) out.steps.push_back(l1);
    }
    for (Level level : {Level::L2, Level::L3}) {
      if (!climb) break;
      LevelStep step = runner.run(level);
      out.reached = level;
      done = runner.explained(step);
      int next = static_cast<int>(level) + 1;
      climb = level == Level::L3 ? false : climb_or_stop(step, next);
      if (level == Level::L3)
        step.decision = done ? fmt::format("stopped: top of the ladder; the findings explain the gap ({})", describe(step))
                             : fmt::format("stopped: top of the ladder; part of the gap is unexplained ({})", describe(step));
      out.steps.push_back(step);
    }
    out.stop_reason = out.steps.back().decision;
  }
  if (session.measurement()) {
    out.measurement = {{"measurement", *session.measurement()}};
    out.measurement["roofline"] = session.roofline() ? nlohmann::json(*session.roofline()) : nlohmann::json();
  }
  for (const auto& w : session.what_ifs())
    out.what_ifs.push_back({{"change", w.change}, {"compiled", w.program.has_value()}, {"error", w.error}});
  for (auto& k : out.kernels)
    std::stable_sort(k.findings.begin(), k.findings.end(), [](const Finding& a, const Finding& b) {
      return a.level != b.level ? a.level < b.level : a.loc.line < b.loc.line;
    });
  out.seconds = session.open_seconds() + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.bridge_seconds = session.bridge_seconds();
  return out;
}

}  // namespace tdx
