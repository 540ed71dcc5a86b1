#include "tritondx/capture/capture_summary.h"

#include <fmt/format.h>

namespace tdx {

namespace {

std::string shapes_of(const nlohmann::json& args) {
  std::vector<std::string> parts;
  for (const auto& [name, shape] : args.items()) {
    if (!shape.is_array()) continue;
    std::vector<std::string> dims;
    for (const auto& d : shape) dims.push_back(std::to_string(d.get<long long>()));
    parts.push_back(dims.empty() ? "scalar" : fmt::format("{}", fmt::join(dims, "x")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// A KernelBench problem's line: its reference, and how the compiled model compared with it.
std::string problem_of(const nlohmann::json& p) {
  std::string out = fmt::format("KernelBench problem {}: reference {}, compiled with {}", p.value("file", ""),
                                p.value("reference", ""), p.value("compiled_with", ""));
  const auto check = p.value("check", nlohmann::json::object());
  if (!check.contains("matches") || check["matches"].is_null())
    return out + fmt::format("; compiled vs reference: {}", check.value("why", "not checked"));
  if (!check["matches"].get<bool>() && check.contains("why"))
    return out + fmt::format("; compiled vs reference: DIFFERS ({})", check.value("why", ""));
  return out + fmt::format("; compiled vs reference: {} (max abs error {:.3g})",
                           check["matches"].get<bool>() ? "matches" : "DIFFERS beyond atol=rtol=1e-2",
                           check.value("max_abs_error", 0.0));
}

std::string origin_of(const nlohmann::json& k) {
  if (k.contains("generated_by") && k["generated_by"].is_string())
    return fmt::format("{} (torch {}): {}:{}", k["generated_by"].get<std::string>(),
                       k.contains("version") && k["version"].is_string() ? k["version"].get<std::string>() : "",
                       k.value("file", ""), k.value("line", 0));
  std::string where = fmt::format("{}:{}", k.value("file", ""), k.value("line", 0));
  if (k.contains("package") && k["package"].is_string())
    where += fmt::format(" ({} {})", k["package"].get<std::string>(),
                         k.contains("version") && k["version"].is_string() ? k["version"].get<std::string>() : "");
  return where;
}

}  // namespace

std::expected<CaptureSummary, std::string> parse_capture_summary(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array())
    return std::unexpected("capture.json has no kernels list");
  try {
    CaptureSummary s;
    for (const auto& a : j.value("program", nlohmann::json::array())) s.program.push_back(a.get<std::string>());
    s.gpu = j.value("gpu", false);
    s.ranking = j.value("ranking", "");
    s.exit_status = j.value("exit_status", 0);
    if (j.contains("error") && j["error"].is_object())
      s.error = fmt::format("{}: {} (at {})", j["error"].value("type", ""), j["error"].value("message", ""),
                            j["error"].value("where", ""));
    s.launches = j.value("launches", 0LL);
    for (const auto& k : j["kernels"]) {
      CapturedKernel c;
      c.rank = k.value("rank", 0);
      c.name = k.value("kernel", "");
      c.origin = origin_of(k);
      c.calls = k.value("calls", 0LL);
      c.configs = k.value("configs", 0);
      c.share = k.value("share", 0.0);
      if (k.contains("gpu_ms") && k["gpu_ms"].is_number()) c.gpu_ms = k["gpu_ms"].get<double>();
      if (k.contains("shapes") && k["shapes"].is_array() && !k["shapes"].empty())
        c.main_shapes = shapes_of(k["shapes"][0].value("args", nlohmann::json::object()));
      if (k.contains("task") && k["task"].is_string()) c.task = k["task"].get<std::string>();
      c.skipped = k.value("skipped", "");
      c.test_shapes = k.value("test_shapes", 0);
      for (const auto& n : k.value("notes", nlohmann::json::array())) c.notes.push_back(n.get<std::string>());
      s.kernels.push_back(std::move(c));
    }
    if (j.contains("cuda_emulation") && j["cuda_emulation"].contains("host_reads"))
      for (const auto& r : j["cuda_emulation"]["host_reads"])
        s.host_reads.push_back(fmt::format("{}:{} {}() after {}", r.value("file", ""), r.value("line", 0),
                                           r.value("method", ""), r.value("kernel", "a kernel")));
    if (j.contains("problem") && j["problem"].is_object()) s.problem = problem_of(j["problem"]);
    return s;
  } catch (const nlohmann::json::exception& e) {
    return std::unexpected(fmt::format("capture.json is malformed: {}", e.what()));
  }
}

std::string render_capture_summary(const CaptureSummary& s, const std::string& out_dir) {
  std::string out = fmt::format("captured {} launch(es) of {} Triton kernel(s) from `{}`\n", s.launches,
                                s.kernels.size(), fmt::join(s.program, " "));
  if (!s.problem.empty()) out += s.problem + "\n";
  if (!s.gpu) out += fmt::format("no GPU: nothing ran, so there are no times; {}\n", s.ranking);
  out += fmt::format("\n{:>4}  {:<28} {:>7} {:>7} {:>7}{}  {:<24} {}\n", "rank", "kernel", "calls", "configs", "share",
                     s.gpu ? fmt::format(" {:>10}", "GPU ms") : "", "shapes (most frequent)", "task");
  for (const auto& k : s.kernels) {
    std::string task = k.task.empty() ? fmt::format("- ({})", k.skipped)
                                      : fmt::format("{} (+{} test shape(s))", k.task, k.test_shapes);
    out += fmt::format("{:>4}  {:<28} {:>7} {:>7} {:>6.1f}%{}  {:<24} {}\n", k.rank, k.name, k.calls, k.configs,
                       100.0 * k.share, s.gpu ? fmt::format(" {:>10.3f}", k.gpu_ms) : "", k.main_shapes, task);
  }
  bool any_notes = false;
  for (const auto& k : s.kernels) {
    if (k.task.empty() && k.notes.empty()) continue;
    if (!any_notes) out += "\n";
    any_notes = true;
    out += fmt::format("  {}: {}\n", k.name, k.origin);
    for (const auto& n : k.notes) out += fmt::format("    note: {}\n", n);
  }
  if (!s.host_reads.empty()) {
    out += "\nthe program read values back from tensors a kernel was given (no kernel ran: it read what the CPU "
           "tensor held):\n";
    for (const auto& r : s.host_reads) out += fmt::format("  {}\n", r);
  }
  bool written = false;
  for (const auto& k : s.kernels) written |= !k.task.empty();
  if (written) out += fmt::format("\nnext:\n  tritondx optimize {}/*.py\n", out_dir);
  return out;
}

}  // namespace tdx
