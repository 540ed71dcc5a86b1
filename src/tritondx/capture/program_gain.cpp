#include "tritondx/capture/program_gain.h"

#include <filesystem>

#include <fmt/format.h>

namespace tdx {

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) || a == b;
}

}  // namespace

ProgramGain program_gain(const nlohmann::json& capture,
                         const std::vector<std::pair<std::string, std::optional<nlohmann::json>>>& reports) {
  ProgramGain g;
  g.gpu_ranked = capture.value("gpu", false);
  double after = 0;
  bool all_measured = true;
  for (const auto& k : capture.value("kernels", nlohmann::json::array())) {
    if (!k.contains("task") || !k["task"].is_string()) continue;
    KernelGain kg;
    kg.kernel = k.value("kernel", "");
    kg.task = k["task"].get<std::string>();
    kg.share = k.value("share", 0.0);
    const std::optional<nlohmann::json>* report = nullptr;
    for (const auto& [task, r] : reports)
      if (same_file(task, kg.task)) report = &r;
    if (report == nullptr) continue;  // captured, not optimized in this run
    if (!report->has_value()) {
      kg.status = "failed (see its optimize.log)";
    } else if ((**report).contains("speedup") && (**report)["speedup"].is_number()) {
      kg.speedup = (**report)["speedup"].get<double>();
      kg.status = "optimized";
    } else {
      kg.status = "not measured (no GPU)";
    }
    g.optimized_share += kg.share;
    if (kg.speedup && *kg.speedup > 0) after += kg.share / *kg.speedup;
    else all_measured = false;
    g.kernels.push_back(std::move(kg));
  }
  if (all_measured && !g.kernels.empty() && g.gpu_ranked) g.speedup = 1.0 / (after + (1.0 - g.optimized_share));
  return g;
}

std::string render_program_gain(const ProgramGain& g) {
  std::string out = fmt::format("\nwhat the program gains ({} of its kernel {} in the optimized kernels):\n",
                                fmt::format("{:.1f}%", 100.0 * g.optimized_share),
                                g.gpu_ranked ? "time" : "static cost");
  for (const auto& k : g.kernels)
    out += fmt::format("  {:<28} {:>6.1f}%  {}\n", k.kernel, 100.0 * k.share,
                       k.speedup ? fmt::format("{:.2f}x", *k.speedup) : k.status);
  if (g.speedup)
    out += fmt::format("  the program's kernel time: {:.2f}x faster (each kernel's measured speedup, weighted by its "
                       "share of the captured GPU time)\n",
                       *g.speedup);
  else
    out += g.gpu_ranked ? "  the program's kernel time: not measured (a kernel has no measured speedup)\n"
                        : "  the program's kernel time: not measured (captured without a GPU: its shares are static "
                          "costs, not times; capture and optimize on a GPU to measure it)\n";
  return out;
}

}  // namespace tdx
