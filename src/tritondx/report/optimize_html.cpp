#include "tritondx/report/optimize_html.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "tritondx/report/html.h"
#include "tritondx/report/svg_chart.h"
#include "tritondx/report/tune_seconds.h"

namespace tdx {

namespace {

using json = nlohmann::json;

// j[key] when it is a string (a resumed run's report may hold null where a fresh one has text).
std::string str(const json& j, const char* key, std::string fallback = {}) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string esc(const json& j, const char* key) { return html_escape(str(j, key)); }

std::string time_html(const json& score) {
  if (!score.is_object()) return "not measured";
  if (score.value("measured", false))
    return fmt::format("{:.4f} ms <span class=\"muted\">(p10 {:.4f}, p90 {:.4f}, {} reps)</span>",
                       score.value("median_ms", 0.0), score.value("p10_ms", 0.0), score.value("p90_ms", 0.0),
                       score.value("reps", 0));
  if (score.value("static_seconds", 0.0) > 0)
    return fmt::format("not measured <span class=\"muted\">(static estimate {:.4f} ms)</span>",
                       score.value("static_seconds", 0.0) * 1e3);
  return "not measured";
}

// before / after: measured medians, else the static estimates (said so), else nothing.
std::string speedup_html(const json& before, const json& after) {
  if (before.value("measured", false) && after.value("measured", false) && after.value("median_ms", 0.0) > 0)
    return fmt::format("{:.2f}&times; measured", before.value("median_ms", 0.0) / after.value("median_ms", 0.0));
  if (before.value("static_seconds", 0.0) > 0 && after.value("static_seconds", 0.0) > 0)
    return fmt::format("{:.2f}&times; by the static cost model (not measured)",
                       before.value("static_seconds", 0.0) / after.value("static_seconds", 0.0));
  return "not measured";
}

std::string diff_html(const std::string& diff) {
  std::string out = "<pre class=\"diff\">";
  std::istringstream in(diff);
  for (std::string line; std::getline(in, line);) {
    const char* cls = line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0 ? "file"
                      : line.rfind("+", 0) == 0                              ? "add"
                      : line.rfind("-", 0) == 0                              ? "del"
                      : line.rfind("@@", 0) == 0                             ? "hunk"
                                                                             : "";
    out += *cls ? fmt::format("<span class=\"{}\">{}</span>\n", cls, html_escape(line)) : html_escape(line) + "\n";
  }
  return out + "</pre>\n";
}

std::string evidence_html(const json& finding) {
  std::string out = "<ul class=\"evidence\">\n";
  for (const auto& e : finding.value("evidence", json::array())) {
    const int line = e.contains("loc") ? e["loc"].value("line", 0) : 0;
    std::string quote = str(e, "quote");
    if (quote.size() > 200) quote = quote.substr(0, 197) + "...";
    out += fmt::format("<li><b>{}</b>{}: {}{}</li>\n", esc(e, "stage"), line ? fmt::format(" (line {})", line) : "",
                       esc(e, "note"), quote.empty() ? "" : " <code>" + html_escape(quote) + "</code>");
  }
  return out + "</ul>\n";
}

// One accepted rewrite: the chain from the finding it targeted to the time it measured.
std::string step_html(size_t k, const json& node, const json& parent) {
  const std::string recipe = str(node, "recipe");
  std::string out = fmt::format("<section class=\"step\">\n<h3>{}. <code>{}</code>{} (candidate {})</h3>\n<dl>\n", k,
                                html_escape(recipe),
                                recipe == "launch-tune" ? "" : fmt::format(" on line {}", node.value("target_line", 0)),
                                node.value("id", 0));
  if (recipe == "launch-tune")
    out += fmt::format("<dt>Why</dt><dd>not a diagnosis: the last stage of the search tries a grid over the launch "
                       "parameters (block sizes, num_warps, num_stages) of candidate {} and keeps the fastest variant "
                       "(see Launch tuning)</dd>\n",
                       parent.value("id", 0));
  if (const auto& f = node.value("targeted_finding", json()); f.is_object()) {
    std::string gain;
    if (f.contains("estimated_gain") && f["estimated_gain"].is_number())
      gain = fmt::format(", estimated gain {:.2f}&times;", f["estimated_gain"].get<double>());
    out += fmt::format("<dt>Symptom</dt><dd>{} <code>{}</code>, confidence {:.2f}{}: {}</dd>\n", esc(f, "level"),
                       esc(f, "rule"), f.value("confidence", 0.0), gain, esc(f, "symptom"));
    const size_t links = f.value("evidence", json::array()).size();
    out += fmt::format("<dt>Evidence</dt><dd><details><summary>{} link{} from the source to the IR</summary>\n{}"
                       "</details></dd>\n",
                       links, links == 1 ? "" : "s", evidence_html(f));
    out += fmt::format("<dt>Cause</dt><dd>{}</dd>\n", esc(f, "cause"));
  }
  out += fmt::format("<dt>Rewrite</dt><dd>{}</dd>\n", esc(node, "description"));
  if (const auto& g = node.value("target_gone", json()); g.is_object())
    out += fmt::format("<dt>Target {}</dt><dd>{}</dd>\n", g.value("gone", false) ? "gone" : "still there", esc(g, "note"));
  out += fmt::format("<dt>Result</dt><dd>{} &rarr; {} ({})</dd>\n</dl>\n", time_html(parent.value("score", json())),
                     time_html(node.value("score", json())),
                     speedup_html(parent.value("score", json()), node.value("score", json())));
  out += "<details open><summary>diff</summary>\n" + diff_html(str(node, "diff")) + "</details>\n";
  return out + "</section>\n";
}

std::string candidates_chart(const json& report, const std::map<long long, const json*>& by_id) {
  const json* original = by_id.count(report.value("original", 0LL)) ? by_id.at(report.value("original", 0LL)) : nullptr;
  if (!original || !(*original)["score"].value("measured", false)) return "";
  const double base = (*original)["score"].value("median_ms", 0.0);
  std::vector<ChartBar> bars;
  for (const auto& c : report.value("candidates", json::array())) {
    const auto& s = c.value("score", json());
    if (!s.is_object() || !s.value("measured", false) || s.value("median_ms", 0.0) <= 0) continue;
    const double ms = s.value("median_ms", 0.0);
    const std::string recipe = str(c, "recipe");
    bars.push_back({fmt::format("{} {}", c.value("id", 0), recipe.empty() ? "original" : recipe), base / ms,
                    fmt::format("{:.2f}x, {:.4f} ms", base / ms, ms), c.value("id", 0LL) == report.value("best", 0LL)});
  }
  if (bars.size() < 2) return "";
  return "<h2>Candidates measured</h2>\n<figure>" +
         svg_bar_chart("Speedup of each measured candidate over the original (dashed: 1x)", bars, 1.0) +
         "</figure>\n";
}

std::string tune_html(const json& tune, const std::string& title, const std::string& which) {
  if (!tune.is_object()) return "";
  std::string out = fmt::format("<h2>{}</h2>\n<p>A grid on {} {} ({:.4f} ms as given), each variant run with the same "
                                "checks and timing in one bridge process.</p>\n<table>\n<tr><th>variant</th><th>time</th>"
                                "<th>wall time of its checks and timing</th></tr>\n",
                                html_escape(title), html_escape(which), tune.value("from_candidate", 0LL),
                                tune.value("base_ms", 0.0));
  for (const auto& v : tune.value("variants", json::array()))
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(v, "config"),
                       v.contains("median_ms") && v["median_ms"].is_number()
                           ? fmt::format("{:.4f} ms", v["median_ms"].get<double>())
                           : html_escape(str(v, "error", "not run")),
                       html_escape(tune_variant_seconds(v)));
  return out + "</table>\n";
}

}  // namespace

std::string render_optimize_html(const json& report) {
  const json candidates_list = report.value("candidates", json::array());
  std::map<long long, const json*> by_id;
  for (const auto& c : candidates_list) by_id[c.value("id", 0LL)] = &c;
  auto node = [&](long long id) { return by_id.count(id) ? *by_id.at(id) : json::object(); };
  const json original = node(report.value("original", 0LL)), best = node(report.value("best", 0LL));
  const std::string task = str(report, "task");

  std::string body = fmt::format("<h1>tritondx optimize: <code>{}</code></h1>\n<ul>\n",
                                 html_escape(std::filesystem::path(task).filename().string()));
  body += fmt::format("<li>Task: <code>{}</code></li>\n", html_escape(task));
  body += fmt::format("<li>Store: <code>{}</code> (run {}){}</li>\n", esc(report, "store"), report.value("run_id", 0LL),
                      report.value("resumed", false) ? ", resumed" : "");
  if (report.value("gpu", false)) {
    body += fmt::format("<li>Measured on: {}</li>\n", html_escape(str(report, "device", "a GPU")));
    if (report.contains("verified_against") && report["verified_against"].is_string())
      body += fmt::format("<li>Verified against: {}</li>\n", esc(report, "verified_against"));
  } else {
    body += "<li><b>No GPU</b>: correctness and timing were not measured. Candidates were compiled and re-diagnosed; "
            "the best is chosen by the static cost model and the findings it removes.</li>\n";
  }
  const size_t candidates = candidates_list.size();
  body += fmt::format("<li>Candidates evaluated: {} in {:.1f} s; stopped because {}</li>\n</ul>\n",
                      candidates ? candidates - 1 : 0, report.value("seconds", 0.0), esc(report, "stop_reason"));
  const bool kept_original = report.value("best", 0LL) == report.value("original", 0LL);
  body += "<table>\n<tr><th></th><th>kernel</th><th>time</th><th>speedup</th></tr>\n";
  body += fmt::format("<tr><td>original</td><td>candidate {}</td><td>{}</td><td>1.00&times;</td></tr>\n",
                      original.value("id", 0), time_html(original.value("score", json())));
  body += fmt::format("<tr><td>best</td><td>candidate {}</td><td>{}</td><td>{}</td></tr>\n</table>\n",
                      best.value("id", 0), time_html(best.value("score", json())),
                      kept_original ? "1.00&times; (nothing beat the original)"
                                    : speedup_html(original.value("score", json()), best.value("score", json())));
  body += candidates_chart(report, by_id);

  body += "<h2>Accepted rewrites</h2>\n";
  const auto path = report.value("best_path", json::array());
  if (path.size() <= 1) body += "<p>None: no candidate beat the original.</p>\n";
  for (size_t k = 1; k < path.size(); ++k) body += step_html(k, node(path[k].get<long long>()), node(path[k - 1].get<long long>()));

  body += "<h2>Other candidates</h2>\n<table>\n<tr><th>id</th><th>parent</th><th>recipe</th><th>target</th>"
          "<th>status</th><th>result</th></tr>\n";
  for (const auto& c : candidates_list) {
    const std::string status = str(c, "status");
    if (str(c, "rewriter") == "original" || status == "accepted" || status == "best") continue;
    std::string targets;
    for (const auto& t : c.value("targets", json::array()))
      if (t.is_string()) targets += (targets.empty() ? "" : ", ") + t.get<std::string>();
    std::string result;
    if (const auto& r = c.value("reject", json()); r.is_object())
      result = fmt::format("{}: {}", esc(r, "stage"), esc(r, "reason"));
    else
      result = time_html(c.value("score", json()));
    const int line = c.value("target_line", 0);  // 0: no finding targeted (launch-tune)
    body += fmt::format("<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}{}</td><td>{}</td><td>{}"
                        "</td></tr>\n",
                        c.value("id", 0), c["parent"].is_number() ? std::to_string(c["parent"].get<long long>()) : "",
                        esc(c, "recipe"), html_escape(targets), line ? fmt::format(" (line {})", line) : "",
                        html_escape(status), result);
  }
  body += "</table>\n";
  body += tune_html(report.value("tune", json()), "Launch tuning", "candidate");
  body += tune_html(report.value("tune_rival", json()), "Launch tuning of the rival",
                    "the best kernel's rival (the fastest candidate off its line, or, when it is the kernel as "
                    "given, a rewrite its diagnosis expected a gain from, within 5% of it), candidate");
  if (report.value("tune", json()).is_object() || report.value("tune_rival", json()).is_object()) {
    double tune_wall = 0;
    for (const char* key : {"tune", "tune_rival"})
      if (const json t = report.value(key, json()); t.is_object()) tune_wall += t.value("wall_s", 0.0);
    body += fmt::format("<p>Launch tuning ran {} variants on the GPU{}.</p>\n", report.value("tune_evaluations", 0),
                        tune_wall > 0 ? fmt::format(" in {:.1f} s", tune_wall) : "");
  }
  if (const auto notes = report.value("notes", json::array()); !notes.empty()) {
    body += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : notes)
      if (n.is_string()) body += "<li>" + html_escape(n.get<std::string>()) + "</li>\n";
    body += "</ul>\n";
  }
  if (const auto& llm = report.value("llm_usage", json()); llm.is_object() && llm.value("calls", 0) > 0)
    body += fmt::format("<p>LLM: {} call(s), {} failed, {} prompt + {} completion tokens, ${:.4f}</p>\n",
                        llm.value("calls", 0), llm.value("failed_calls", 0), llm.value("prompt_tokens", 0),
                        llm.value("completion_tokens", 0), llm.value("cost_usd", 0.0));
  const std::string css =
      "pre.diff { background: #f6f8fa; padding: 8px; overflow-x: auto; }\n"
      ".add { color: #116329; background: #dafbe1; } .del { color: #82071e; background: #ffebe9; }\n"
      ".hunk { color: #6e7781; } .file { color: #444; font-weight: bold; }\n"
      "section.step { border-left: 4px solid #2f7d32; padding-left: 8px; margin: 1em 0; }\n"
      "dt { font-weight: bold; } dd { margin: 0 0 4px 1.5em; } ul.evidence { margin: 4px 0; }\n";
  return html_page("tritondx optimize: " + std::filesystem::path(task).filename().string(), body, css);
}

}  // namespace tdx
