#include <map>

#include <fmt/ranges.h>

#include "tritondx/inspect/line_view.h"
#include "tritondx/report/diagnosis_report.h"
#include "tritondx/report/html.h"

namespace tdx {

namespace {

std::string finding_html(const Finding& f) {
  std::string o = fmt::format("<div class=\"finding\"><b>{} <code>{}</code></b>: {}<br>", level_name(f.level),
                              html_escape(f.rule_id), html_escape(f.symptom));
  for (const auto& e : f.evidence)
    o += fmt::format("<span class=\"muted\">{}{}</span> <code>{}</code>{}<br>", stage_name(e.stage),
                     e.ir_line ? fmt::format(":{}", e.ir_line) : "", html_escape(e.quote),
                     e.note.empty() ? "" : " &mdash; " + html_escape(e.note));
  if (!f.cause.empty()) o += fmt::format("<i>cause:</i> {}<br>", html_escape(f.cause));
  o += fmt::format("confidence {:.2f}{}", f.confidence,
                   f.estimated_gain ? fmt::format(", est. gain {:.2f}&times;", *f.estimated_gain) : "");
  for (const auto& p : f.proposals)
    o += fmt::format("<br><i>fix</i> (<code>{}</code>): {}", html_escape(fmt::format("{}", p.recipe)), html_escape(p.description));
  return o + "</div>";
}

std::string counts(const std::map<std::string, int>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += fmt::format("{}{}&nbsp;{}", out.empty() ? "" : ", ", v, html_escape(k));
  return out;
}

}  // namespace

std::string render_diagnosis_html(const Diagnosis& d, const DiagnosisSession& session) {
  std::string o;
  o += fmt::format("<h1>tritondx diagnose <code>{}</code></h1>\n<p>target {}; ladder reached {}: {}</p>\n",
                   html_escape(d.task_path), html_escape(d.target), level_name(d.reached), html_escape(d.stop_reason));
  if (d.compile_error)
    o += fmt::format("<p class=\"warn\">compile error: <code>{}</code></p>\n",
                     html_escape(d.compile_error->diagnostic.to_string()));
  o += "<table><tr><th>level</th><th>rules</th><th>findings</th><th>decision</th></tr>\n";
  for (const auto& s : d.steps)
    o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", level_name(s.level), s.rules_run,
                     s.findings, html_escape(s.decision));
  o += "</table>\n";
  const auto& task = session.task();
  for (size_t i = 0; i < d.kernels.size(); ++i) {
    const auto& k = d.kernels[i];
    o += fmt::format("<h2>kernel <code>{}</code></h2>\n", html_escape(k.kernel));
    if (k.cost)
      o += fmt::format("<p>static roofline: floor {:.1f} &micro;s, estimate {:.1f} &micro;s ({}-bound via {}), gap "
                       "<b>{:.2f}&times;</b>, findings explain {:.2f}&times;</p>\n",
                       k.cost->floor_seconds * 1e6, k.cost->estimate_seconds * 1e6, k.cost->bound,
                       html_escape(k.cost->compute_path), k.cost->gap, k.explained);
    std::map<int, std::vector<const Finding*>> by_line;
    for (const auto& f : k.findings) by_line[f.loc.line].push_back(&f);
    std::map<int, LineView> views;
    if (i < session.kernels().size() && session.kernels()[i].program) {
      const auto& state = session.kernels()[i];
      for (auto& v : build_line_views(*state.program, *state.source_map, task.lines)) views[v.line] = std::move(v);
    }
    int first = 1, last = static_cast<int>(task.lines.size());
    if (const PyNode* fn = session.kernels().size() > i ? session.kernels()[i].function : nullptr) {
      first = fn->line;
      last = fn->end_line;
    }
    o += "<table><tr><th>line</th><th>source</th><th>TTGIR</th><th>PTX</th><th>SASS</th><th>findings</th></tr>\n";
    for (int line = first; line <= last; ++line) {
      auto v = views.find(line);
      std::string ttgir, ptx, sass, findings;
      if (v != views.end()) {
        for (const auto& op : v->second.ttgir_ops) ttgir += (ttgir.empty() ? "" : "<br>") + html_escape(op);
        ptx = counts(v->second.ptx_classes);
        sass = counts(v->second.sass_classes);
      }
      if (auto f = by_line.find(line); f != by_line.end())
        for (const auto* fp : f->second) findings += finding_html(*fp);
      o += fmt::format("<tr><td>{}</td><td class=\"src\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", line,
                       html_escape(task.line(line)), ttgir, ptx, sass, findings);
    }
    o += "</table>\n";
    // Findings on lines outside the kernel body (e.g. the launch function).
    for (const auto& [line, fs] : by_line) {
      if (line >= first && line <= last) continue;
      for (const auto* f : fs) o += fmt::format("<p>line {}:</p>{}", line, finding_html(*f));
    }
  }
  return html_page("tritondx diagnose: " + d.task_path, o);
}

}  // namespace tdx
