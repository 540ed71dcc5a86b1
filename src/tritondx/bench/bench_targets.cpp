#include "tritondx/bench/bench_targets.h"

#include "tritondx/bench/bench_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tdx {
namespace {

namespace fs = std::filesystem;

std::string fmt_x(double x) { return x > 0 ? fmt::format("{:.2f}x", x) : "-"; }

// A number of the summary (0 when absent), read as the summary reads entries.
double number(const nlohmann::json& s, std::initializer_list<const char*> path) { return entry_number(s, path); }

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

// One metric's measured value, its text, and its value at the roofline floor (0: none).
struct Measured {
  double value = 0;
  std::string text;
  double at_floor = 0;
};

Measured measure(const std::string& metric, const nlohmann::json& s) {
  const double n = number(s, {"measured"});
  if (metric == "geomean_speedup")
    return {number(s, {"geomean_speedup"}), fmt::format("{:.2f}x over {}", number(s, {"geomean_speedup"}), int(n)),
            number(s, {"at_roofline_floor", "geomean_speedup"})};
  if (metric == "median_speedup")
    return {number(s, {"median_speedup"}), fmt_x(number(s, {"median_speedup"})),
            number(s, {"at_roofline_floor", "median_speedup"})};
  if (metric == "vs_autotune_geomean")
    return {number(s, {"vs_autotune_geomean"}), fmt_x(number(s, {"vs_autotune_geomean"})),
            number(s, {"at_roofline_floor", "vs_autotune_geomean"})};
  if (metric == "not_slower_than_autotune_share") {
    const double k = number(s, {"not_slower_than_autotune"}), c = number(s, {"compared_with_autotune"});
    return {share(k, c), fmt::format("{} of {}", int(k), int(c))};
  }
  if (metric == "roofline_fraction_geomean")
    return {number(s, {"roofline_fraction_geomean"}),
            number(s, {"roofline_entries"}) > 0 || !s.contains("roofline_entries")
                ? fmt::format("{:.0f}%", 100 * number(s, {"roofline_fraction_geomean"}))
                : "not measured (no roofline against the measuring card)"};
  if (metric == "faster_than_compile_share") {
    const double w = number(s, {"wins_vs_torch_compile"}), c = number(s, {"compared_with_torch_compile"});
    return {share(w, c), fmt::format("{} of {}", int(w), int(c))};
  }
  if (metric == "median_gpu_evaluations")
    return {number(s, {"median_gpu_evaluations"}), fmt::format("{:.0f}", number(s, {"median_gpu_evaluations"}))};
  if (metric == "actionable_share") {
    const double considered = number(s, {"actionability", "with_recipe"}) - number(s, {"actionability", "not_reached"});
    const double v = number(s, {"actionability", "evaluated_share"});
    return {v, fmt::format("{:.0f}% of {}", 100 * v, int(considered))};
  }
  return {};
}

}  // namespace

const std::vector<std::string>& bench_target_metrics() {
  static const std::vector<std::string> metrics{
      "geomean_speedup",           "median_speedup",            "vs_autotune_geomean",
      "not_slower_than_autotune_share", "roofline_fraction_geomean", "faster_than_compile_share",
      "median_gpu_evaluations",    "actionable_share"};
  return metrics;
}

BenchTargets default_bench_targets() {
  BenchTargets t;
  t.source = "built-in";
  t.min_entries = 40;
  t.targets = {
      {"geomean_speedup", ">=", 4.5, "geomean speedup >= 4.5x over >= 40 entries"},
      {"median_speedup", ">=", 3.0, "median speedup >= 3.0x"},
      {"vs_autotune_geomean", ">=", 2.0, "geomean over autotune-only >= 2x"},
      {"roofline_fraction_geomean", ">=", 0.7, "optimized kernels at >= 70% of roofline (geomean)"},
      {"faster_than_compile_share", ">=", 0.6, "faster than torch.compile on >= 60% of entries"},
      {"median_gpu_evaluations", "<=", 16, "median <= 16 GPU evaluations per entry"},
      {"actionable_share", ">=", 0.9, ">= 90% of the findings proposing a recipe lead to an evaluated candidate"},
  };
  return t;
}

Expected<BenchTargets> load_bench_targets(const std::string& suite_dir) {
  const fs::path path = fs::path(suite_dir) / "targets.json";
  if (!fs::exists(path)) return default_bench_targets();
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in, nullptr, false);
  auto bad = [&](const std::string& why) {
    return fail(Stage::Task, fmt::format("{}: {}", path.string(), why));
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  BenchTargets t;
  t.source = path.string();
  if (j.contains("min_entries")) {
    if (!j["min_entries"].is_number_integer()) return bad("min_entries is not an integer");
    t.min_entries = j["min_entries"].get<int>();
  }
  if (!j.contains("targets") || !j["targets"].is_array()) return bad("no \"targets\" array");
  const auto& metrics = bench_target_metrics();
  for (const auto& e : j["targets"]) {
    if (!e.is_object() || !e.contains("metric") || !e["metric"].is_string() || !e.contains("value") ||
        !e["value"].is_number())
      return bad("a target needs \"metric\" (a string) and \"value\" (a number)");
    BenchTarget target{e["metric"].get<std::string>(), e.value("compare", ">="), e["value"].get<double>(),
                       e.value("label", "")};
    if (std::find(metrics.begin(), metrics.end(), target.metric) == metrics.end())
      return bad(fmt::format("unknown metric \"{}\"", target.metric));
    if (target.compare != ">=" && target.compare != "<=")
      return bad(fmt::format("compare must be \">=\" or \"<=\", not \"{}\"", target.compare));
    if (target.label.empty()) target.label = fmt::format("{} {} {}", target.metric, target.compare, target.value);
    t.targets.push_back(std::move(target));
  }
  return t;
}

nlohmann::json evaluate_bench_targets(const BenchTargets& targets, const nlohmann::json& summary) {
  nlohmann::json out = nlohmann::json::array();
  const bool full_measured = number(summary, {"measured"}) >= targets.min_entries;
  // Actionability is a property of the searches, which run with or without a GPU: it counts the
  // entries searched, not the entries measured.
  const bool full_searched = number(summary, {"actionability", "entries"}) >= targets.min_entries;
  for (const auto& t : targets.targets) {
    const bool full = t.metric == "actionable_share" ? full_searched : full_measured;
    Measured m = measure(t.metric, summary);
    const bool holds = t.compare == ">=" ? m.value >= t.value : m.value <= t.value;
    bool compared = true;
    if (t.metric == "vs_autotune_geomean" || t.metric == "not_slower_than_autotune_share")
      compared = number(summary, {"compared_with_autotune"}) > 0;
    if (t.metric == "faster_than_compile_share") compared = number(summary, {"compared_with_torch_compile"}) > 0;
    nlohmann::json j{{"target", t.label}, {"metric", t.metric}, {"measured", m.text},
                     {"met", full && compared && holds}};
    if (m.at_floor > 0)
      j.update({{"at_roofline_floor", fmt_x(m.at_floor)}, {"reachable", m.at_floor >= t.value}});
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace tdx
