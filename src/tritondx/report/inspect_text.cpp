#include "tritondx/report/inspect_report.h"

#include <fmt/ranges.h>

namespace tdx {

namespace {

std::string counts(const std::map<std::string, int>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", v, k);
  return out;
}

std::string bits(const std::map<int, int>& m) {
  std::string out;
  for (const auto& [b, n] : m) out += fmt::format("{}{}x{}-bit", out.empty() ? "" : " ", n, b);
  return out.empty() ? "none" : out;
}

void summary_text(std::string& o, const KernelInspection& k) {
  const auto& s = k.summary;
  const auto& r = s.resources;
  o += fmt::format("kernel {}  (grid {}, num_warps {}, num_stages {})\n", s.name,
                   k.compiled.launch.value("grid", nlohmann::json::array()).dump(), r.num_warps, r.num_stages);
  o += fmt::format("  registers {} / thread, spills {} B stores {} B loads, local {} B, shared {} B\n", r.registers,
                   r.spill_stores, r.spill_loads, r.local_bytes, r.shared_bytes);
  o += fmt::format("  occupancy {:.0f}% ({} warps/SM, {} blocks/SM, limited by {})\n", s.occupancy.fraction * 100,
                   s.occupancy.warps_per_sm, s.occupancy.blocks_per_sm, s.occupancy.limiter);
  o += "  global memory:\n";
  for (const auto& m : s.memory)
    o += fmt::format("    line {:>4} {:<5} {:<5} {} elem/thread{} -> PTX {}\n", m.loc.line, m.kind, m.element,
                     m.elements_per_thread, m.masked ? ", masked" : "", bits(m.ptx_bits));
  if (!s.dots.empty()) {
    o += "  dots:\n";
    for (const auto& d : s.dots)
      o += fmt::format("    line {:>4} {} x {} -> {} {}  via {}\n", d.loc.line, d.a_type, d.b_type, d.acc_type,
                       fmt::join(d.shape, "x"), d.mma);
  }
  o += fmt::format("  async copies (cp.async) {}, TMA {}, wgmma {}, mma.sync {}\n", s.async_copies_ptx, s.tma_ptx,
                   s.wgmma_ptx, s.mma_sync_ptx);
  for (const auto& l : s.loops)
    o += fmt::format("  loop at line {}: {}pipelined ({} async copies, {} TMA loads, {} dots{})\n", l.loc.line,
                     l.pipelined ? "" : "not ", l.async_copies, l.tma_loads, l.dots,
                     l.num_stages_attr ? fmt::format(", tt.num_stages={}", l.num_stages_attr) : "");
  if (s.conversions.empty()) o += "  layout conversions surviving: none\n";
  for (const auto& c : s.conversions)
    o += fmt::format("  layout conversion at line {}: {} -> {} ({} B{})\n", c.loc.line, c.from, c.to, c.bytes,
                     c.in_loop ? ", inside a loop" : "");
  for (const auto& rm : s.remarks) o += fmt::format("  remark {}\n", rm);
  for (const auto& p : s.problems) o += fmt::format("  note: {}\n", p);
}

}  // namespace

std::string render_inspect_text(const InspectReport& r) {
  std::string o = fmt::format("tritondx inspect {}\ntarget {}; artifacts in {}\n\n", r.task.path, r.target,
                              r.artifacts_dir);
  for (const auto& k : r.kernels) {
    summary_text(o, k);
    o += "\n  line | source\n       |   TTIR / TTGIR ops; PTX and SASS instruction classes\n";
    for (const auto& v : k.lines) {
      std::string_view src = v.source;
      while (!src.empty() && (src.front() == ' ')) src.remove_prefix(1);
      o += fmt::format("  {:>4} | {}\n", v.line, src);
      if (!v.ttir_ops.empty()) o += fmt::format("       |   ttir  {}\n", fmt::join(v.ttir_ops, ", "));
      if (!v.ttgir_ops.empty()) o += fmt::format("       |   ttgir {}\n", fmt::join(v.ttgir_ops, "; "));
      if (v.ptx_total) o += fmt::format("       |   ptx   {}: {}\n", v.ptx_total, counts(v.ptx_classes));
      if (v.sass_total) o += fmt::format("       |   sass  {}: {}\n", v.sass_total, counts(v.sass_classes));
    }
    o += "\n";
  }
  for (const auto& note : r.notes) o += fmt::format("note: {}\n", note);
  o += fmt::format("time: bridge {:.2f} s (of which triton.compile {:.2f} s), parse+analysis {:.3f} s\n",
                   r.compile_seconds, r.triton_seconds, r.parse_seconds);
  return o;
}

}  // namespace tdx
