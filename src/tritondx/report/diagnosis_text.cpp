#include <fmt/ranges.h>

#include "tritondx/report/diagnosis_report.h"

namespace tdx {

namespace {

std::string gain_text(const Finding& f) {
  return f.estimated_gain ? fmt::format(", est. gain {:.2f}x", *f.estimated_gain) : std::string();
}

void finding_text(std::string& o, const Finding& f) {
  o += fmt::format("  [{}] line {}: {}\n", f.rule_id, f.loc.line, f.symptom);
  for (const auto& e : f.evidence) {
    std::string where = e.ir_line > 0 ? fmt::format("{}:{}", stage_name(e.stage), e.ir_line)
                                      : std::string(stage_name(e.stage));
    o += fmt::format("      {:<12} {}{}\n", where, e.quote, e.note.empty() ? "" : "   -- " + e.note);
  }
  if (!f.cause.empty()) o += fmt::format("      cause: {}\n", f.cause);
  o += fmt::format("      confidence {:.2f}{}\n", f.confidence, gain_text(f));
  for (const auto& p : f.proposals) o += fmt::format("      fix ({}): {}\n", p.recipe, p.description);
}

}  // namespace

std::string render_diagnosis_text(const Diagnosis& d) {
  std::string o = fmt::format("tritondx diagnose {}\ntarget {}\n", d.task_path, d.target);
  if (d.compile_error) o += fmt::format("\ncompile error: {}\n", d.compile_error->diagnostic.to_string());
  if (d.measurement.is_object() && d.measurement["roofline"].is_object()) {
    const auto& m = d.measurement["measurement"];
    const auto& r = d.measurement["roofline"];
    o += fmt::format("measured on {}: median {:.4f} ms, {:.1f}% of roofline ({}-bound), correctness {}\n",
                     m.value("device", "?"), r.value("seconds", 0.0) * 1e3, r.value("fraction", 0.0) * 100,
                     r.value("bound", "?"), m.value("correct", false) ? "passed" : "FAILED");
  }
  for (const auto& k : d.kernels) {
    o += fmt::format("\nkernel {}\n", k.kernel);
    if (k.cost)
      o += fmt::format("  static roofline: floor {:.1f} us, estimate {:.1f} us ({}-bound, {}), gap {:.2f}x\n",
                       k.cost->floor_seconds * 1e6, k.cost->estimate_seconds * 1e6, k.cost->bound,
                       k.cost->compute_path, k.cost->gap);
    for (Level level : {Level::L0, Level::L1, Level::L2, Level::L3}) {
      bool header = false;
      for (const auto& f : k.findings) {
        if (f.level != level) continue;
        if (!header) o += fmt::format("\n {} findings\n", level_name(level));
        header = true;
        finding_text(o, f);
      }
    }
    if (k.findings.empty()) o += "  no findings\n";
  }
  o += "\nladder:\n";
  for (const auto& s : d.steps)
    o += fmt::format("  {}: {} rules, {} findings; {}\n", level_name(s.level), s.rules_run, s.findings, s.decision);
  for (const auto& f : d.rule_failures) o += fmt::format("rule failure: {} on {}: {}\n", f.rule_id, f.kernel, f.message);
  for (const auto& p : d.problems) o += fmt::format("note: {}\n", p);
  o += fmt::format("time: {:.2f} s, of which the bridge (Python, Triton compiles) {:.2f} s\n", d.seconds, d.bridge_seconds);
  return o;
}

std::string render_diagnosis_markdown(const Diagnosis& d) {
  std::string o = fmt::format("# tritondx diagnosis: `{}`\n\nTarget: {}. Ladder reached {}: {}\n", d.task_path,
                              d.target, level_name(d.reached), d.stop_reason);
  if (d.compile_error) o += fmt::format("\n**Compile error:** `{}`\n", d.compile_error->diagnostic.to_string());
  for (const auto& k : d.kernels) {
    o += fmt::format("\n## Kernel `{}`\n\n", k.kernel);
    if (k.cost)
      o += fmt::format("Static roofline: floor {:.1f} µs, estimate {:.1f} µs, {}-bound via {}, gap **{:.2f}×**; "
                       "findings explain {:.2f}×.\n\n",
                       k.cost->floor_seconds * 1e6, k.cost->estimate_seconds * 1e6, k.cost->bound,
                       k.cost->compute_path, k.cost->gap, k.explained);
    o += "| level | rule | line | symptom | confidence | est. gain |\n|---|---|---|---|---|---|\n";
    for (const auto& f : k.findings)
      o += fmt::format("| {} | `{}` | {} | {} | {:.2f} | {} |\n", level_name(f.level), f.rule_id, f.loc.line, f.symptom,
                       f.confidence, f.estimated_gain ? fmt::format("{:.2f}×", *f.estimated_gain) : "");
    for (const auto& f : k.findings) {
      o += fmt::format("\n### {} `{}` — line {}\n\n{}\n\n", level_name(f.level), f.rule_id, f.loc.line, f.symptom);
      for (const auto& e : f.evidence)
        o += fmt::format("- **{}**{}: `{}`{}\n", stage_name(e.stage), e.ir_line ? fmt::format(" (line {})", e.ir_line) : "",
                         e.quote, e.note.empty() ? "" : " — " + e.note);
      if (!f.cause.empty()) o += fmt::format("\n*Cause:* {}\n", f.cause);
      for (const auto& p : f.proposals) o += fmt::format("\n*Rewrite* (`{}`): {}\n", p.recipe, p.description);
    }
  }
  o += "\n## Ladder\n\n| level | rules | findings | decision |\n|---|---|---|---|\n";
  for (const auto& s : d.steps)
    o += fmt::format("| {} | {} | {} | {} |\n", level_name(s.level), s.rules_run, s.findings, s.decision);
  return o;
}

}  // namespace tdx
