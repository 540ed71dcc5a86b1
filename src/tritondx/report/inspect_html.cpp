#include "tritondx/report/inspect_report.h"

#include <fmt/ranges.h>

#include "tritondx/report/html.h"

namespace tdx {

namespace {

std::string counts_html(const std::map<std::string, int>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += fmt::format("{}{}&nbsp;{}", out.empty() ? "" : "<br>", v, html_escape(k));
  return out;
}

std::string list_html(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "<br>") + html_escape(i);
  return out;
}

void kernel_html(std::string& o, const KernelInspection& k) {
  const auto& s = k.summary;
  const auto& r = s.resources;
  o += fmt::format("<h2>kernel <code>{}</code></h2>\n<table>\n", html_escape(s.name));
  auto row = [&](std::string_view key, const std::string& value) {
    o += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", key, value);
  };
  row("grid", html_escape(k.compiled.launch.value("grid", nlohmann::json::array()).dump()));
  row("num_warps / num_stages", fmt::format("{} / {}", r.num_warps, r.num_stages));
  row("registers / thread", std::to_string(r.registers));
  row("spills (stores / loads)", fmt::format("{} B / {} B", r.spill_stores, r.spill_loads));
  row("shared memory", fmt::format("{} B", r.shared_bytes));
  row("occupancy", fmt::format("{:.0f}% ({} warps/SM, limited by {})", s.occupancy.fraction * 100,
                               s.occupancy.warps_per_sm, html_escape(s.occupancy.limiter)));
  row("cp.async / TMA / wgmma / mma.sync",
      fmt::format("{} / {} / {} / {}", s.async_copies_ptx, s.tma_ptx, s.wgmma_ptx, s.mma_sync_ptx));
  std::string mem;
  for (const auto& m : s.memory) {
    std::string widths;
    for (const auto& [b, n] : m.ptx_bits) widths += fmt::format(" {}&times;{}-bit", n, b);
    mem += fmt::format("line {}: {} {} {} elem/thread&nbsp;&rarr;{}<br>", m.loc.line, m.kind, html_escape(m.element),
                       m.elements_per_thread, widths.empty() ? " none" : widths);
  }
  row("global memory", mem);
  std::string dots;
  for (const auto& d : s.dots)
    dots += fmt::format("line {}: {}&times;{}&rarr;{} via <b>{}</b><br>", d.loc.line, html_escape(d.a_type),
                        html_escape(d.b_type), html_escape(d.acc_type), d.mma);
  if (!dots.empty()) row("dots", dots);
  std::string conv;
  for (const auto& c : s.conversions)
    conv += fmt::format("line {}: {} &rarr; {} ({} B{})<br>", c.loc.line, html_escape(c.from), html_escape(c.to),
                        c.bytes, c.in_loop ? ", in a loop" : "");
  row("layout conversions", conv.empty() ? "none" : conv);
  if (!s.remarks.empty()) row("remarks", list_html(s.remarks));
  if (!s.problems.empty()) row("problems", list_html(s.problems));
  o += "</table>\n<h3>Per source line</h3>\n<table>\n"
       "<tr><th>line</th><th>source</th><th>TTIR</th><th>TTGIR (layout)</th><th>PTX</th><th>SASS</th></tr>\n";
  for (const auto& v : k.lines) {
    o += fmt::format("<tr><td>{}</td><td class=\"src\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     v.line, html_escape(v.source), list_html(v.ttir_ops), list_html(v.ttgir_ops),
                     counts_html(v.ptx_classes), counts_html(v.sass_classes));
  }
  o += "</table>\n";
}

}  // namespace

std::string render_inspect_html(const InspectReport& r) {
  std::string o;
  o += fmt::format("<h1>tritondx inspect <code>{}</code></h1>\n<p class=\"muted\">target {}; artifacts in {}; "
                   "compile {:.2f} s, parse {:.3f} s</p>\n",
                   html_escape(r.task.path), html_escape(r.target), html_escape(r.artifacts_dir), r.compile_seconds,
                   r.parse_seconds);
  for (const auto& note : r.notes) o += "<p class=\"muted\">note: " + html_escape(note) + "</p>\n";
  for (const auto& k : r.kernels) kernel_html(o, k);
  return html_page("tritondx inspect: " + r.task.path, o);
}

}  // namespace tdx
