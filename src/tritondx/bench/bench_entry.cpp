#include "tritondx/bench/bench_entry.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "tritondx/bench/bench_interleaved.h"
#include "tritondx/bench/bench_summary.h"
#include "tritondx/optimize/launch_grid.h"
#include "tritondx/ir/program.h"
#include "tritondx/measure/visible_gpu.h"
#include "tritondx/optimize/optimize_report.h"
#include "tritondx/optimize/search.h"
#include "tritondx/store/sha256.h"
#include "tritondx/store/store.h"
#include "tritondx/target/target.h"
#include "tritondx/optimize/progress_printer.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

// The file's text, empty when it cannot be read.
std::string read_text(const fs::path& p) { return read_file(p.string(), Stage::Task).value_or(""); }

std::string level_of(const std::string& rule) {
  return rule.size() > 2 && rule[0] == 'l' && std::isdigit(static_cast<unsigned char>(rule[1]))
             ? fmt::format("L{}", rule[1])
             : "";
}

nlohmann::json timing_json(const nlohmann::json& timing) {
  if (!timing.is_object()) return nullptr;
  return {{"median_ms", timing.value("median_ms", 0.0)}, {"p10_ms", timing.value("p10_ms", 0.0)},
          {"p90_ms", timing.value("p90_ms", 0.0)}, {"reps", timing.value("reps", 0)}};
}

// The autotune-only peer when the search's launch tuning already ran its grid on the task as
// given (the same launch_grid, its variants verified against the initial kernel as well): that
// grid, not run a second time. None when the tuning ran on a rewrite, or not at all.
std::optional<nlohmann::json> grid_on_the_initial(const OptimizeResult& r) {
  if (!r.tune.is_object() || !r.tune.value("measured", false) || r.nodes.empty()) return std::nullopt;
  if (r.tune.value("from_candidate", 0LL) != r.nodes.front().id) return std::nullopt;
  nlohmann::json grid = r.tune;
  grid.erase("from_candidate");
  grid.erase("base_ms");
  grid["from_search"] = true;
  return grid;
}

// The newest unfinished optimize run of this source in the bench store (a run cut short), if any.
std::optional<RunRecord> unfinished_run(const std::string& store_path, const std::string& sha) {
  if (!fs::exists(store_path)) return std::nullopt;
  auto store = Store::open(store_path);
  if (!store) return std::nullopt;
  auto run = store->latest_unfinished_run(sha, "");
  return run ? *run : std::nullopt;
}

nlohmann::json tritondx_part(const OptimizeResult& r) {
  const SearchNode& o = r.nodes.front();
  const SearchNode& b = r.nodes[r.best];
  int measured = 0, rejected = 0, rejected_at_test_shapes = 0;
  for (const auto& n : r.nodes) {
    measured += n.score.measured ? 1 : 0;
    rejected += n.status == "rejected" ? 1 : 0;
    rejected_at_test_shapes += n.reject_stage == "test-shapes" ? 1 : 0;
  }
  nlohmann::json path = nlohmann::json::array();
  for (size_t i : r.best_path) {
    if (i == 0) continue;
    const auto& c = r.nodes[i].candidate;
    std::string level;
    for (const auto& t : c.targets) level = std::max(level, level_of(t));
    path.push_back({{"recipe", c.recipe.empty() ? c.rewriter : c.recipe}, {"targets", c.targets}, {"level", level},
                    {"description", c.description}});
  }
  nlohmann::json j{{"candidates", static_cast<int>(r.nodes.size()) - 1},
                   {"rejected", rejected},
                   {"rejected_at_test_shapes", rejected_at_test_shapes},
                   {"gpu_evaluations", measured + r.tune_evaluations},
                   {"tune_evaluations", r.tune_evaluations},
                   {"ladder_reach", r.ladder_reach},
                   {"stop_reason", r.stop_reason},
                   {"seconds", r.seconds},
                   {"best_path", path},
                   {"resumed", r.resumed},
                   {"actionability", actionability_to_json(r.actionability)}};
  if (o.score.measured && b.score.measured) {
    j["median_ms"] = b.score.median_ms;
    j["p10_ms"] = b.score.p10_ms;
    j["p90_ms"] = b.score.p90_ms;
    j["speedup"] = o.score.median_ms / b.score.median_ms;
    j["roofline_fraction"] = b.score.roofline_fraction;
  } else {
    j["static_estimate_ms"] = b.score.static_seconds * 1e3;
  }
  return j;
}

}  // namespace

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

bool newer_result(const nlohmann::json& candidate, const nlohmann::json& held) {
  if (!held.is_object()) return true;
  const std::string a = candidate.value("started", ""), b = held.value("started", "");
  if (a != b) return a > b;
  auto rounds_at = [](const nlohmann::json& r) {
    return r.contains("interleaved") && r["interleaved"].is_object() ? r["interleaved"].value("measured_at", "0") : "";
  };
  return rounds_at(candidate) > rounds_at(held);
}

std::string card_of(const nlohmann::json& result) {
  if (!result.is_object() || !result.contains("card") || !result["card"].is_string()) return "";
  return result["card"].get<std::string>();
}

std::string entry_dir(const BenchOptions& o, const BenchEntry& e) {
  return (fs::path(o.out_dir) / "entries" / (e.category + "__" + e.name)).string();
}

std::optional<nlohmann::json> stored_result(const BenchOptions& o, const BenchEntry& e, bool want_gpu,
                                            const std::string& card) {
  fs::path p = fs::path(entry_dir(o, e)) / "entry.json";
  if (!fs::exists(p)) return std::nullopt;
  nlohmann::json j = read_result_json(p.string());
  if (j.is_discarded() || j.value("task_sha256", "") != sha256_hex(read_text(e.path))) return std::nullopt;
  if (want_gpu && j.value("status", "") == "unmeasured") return std::nullopt;
  const std::string stored_card = card_of(j);
  if (want_gpu && !card.empty() && !stored_card.empty() && stored_card != card) return std::nullopt;
  if (bench_revision(j) != kBenchRevision) return std::nullopt;
  return j;
}

nlohmann::json run_bench_entry(const Bridge& bridge, const BenchEntry& entry, const BenchOptions& options) {
  auto start = std::chrono::steady_clock::now();
  fs::path dir = entry_dir(options, entry);
  fs::create_directories(dir);
  const std::string sha = sha256_hex(read_text(entry.path));
  nlohmann::json out{{"entry", entry.id},
                     {"category", entry.category},
                     {"task", fs::relative(entry.path, fs::path(options.suite_dir).parent_path().parent_path()).string()},
                     {"task_sha256", sha},
                     {"bench_revision", kBenchRevision},
                     {"started", utc_now()},
                     {"command", options.command},
                     {"budget", {{"max_candidates", options.max_candidates}, {"max_seconds", options.max_seconds}}}};

  // 1 + 3: the initial kernel and tritondx (recipes only), measured by the optimizer's search.
  OptimizeOptions o;
  o.task_path = entry.path;
  o.out_dir = (dir / "optimize").string();
  o.store_path = (fs::path(options.out_dir) / "store.sqlite").string();
  o.gpu = options.gpu;
  o.max_candidates = options.max_candidates;
  o.max_seconds = options.max_seconds;
  o.target = options.target;
  o.on_candidate = [&entry](const CandidateProgress& p) {
    std::cout << "    " << entry.id << ": " << progress_line(p) << "\n" << std::flush;
  };
  // What was measured before a cut is only kept when it was measured on the card this run sees.
  std::optional<std::string> card;
  auto visible = [&]() -> const std::string& {
    if (!card) card = visible_gpu(bridge).value_or("");
    return *card;
  };
  auto unfinished = unfinished_run(o.store_path, sha);
  if (unfinished && !unfinished->info.device.empty()) {
    if (std::string why = card_change(unfinished->info.device, visible()); !why.empty()) {
      out["notes"].push_back(fmt::format("run {} of this entry in the store was not resumed: {}; a new run started",
                                         unfinished->id, why));
      unfinished.reset();
    }
  }
  o.resume = unfinished.has_value();
  auto finish = [&](std::string status) {
    out["status"] = std::move(status);
    out["wall_seconds"] = out.value("optimize_wall_seconds", 0.0) +
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ofstream(dir / "entry.json") << out.dump(2) << "\n";
    fs::remove(dir / "entry.partial.json");
    return out;
  };
  // The optimizer's part of an entry cut short after it (during a baseline) is kept in
  // entry.partial.json and not searched again.
  bool want_gpu = options.gpu != GpuMode::Off;
  nlohmann::json partial = read_result_json((dir / "entry.partial.json").string());
  if (!card_of(partial).empty())
    if (std::string why = card_change(card_of(partial), visible()); !why.empty()) {
      out["notes"].push_back("the optimizer's results of a cut run (entry.partial.json) were not kept: " + why);
      partial = nullptr;
    }
  if (partial.is_object() && partial.value("task_sha256", "") == sha &&
      partial.value("gpu", false) == want_gpu && partial.contains("tritondx")) {
    for (const char* key : {"gpu", "card", "initial", "roofline", "tritondx", "optimize_wall_seconds", "autotune_only"})
      if (partial.contains(key)) out[key] = partial[key];
    out["tritondx"]["kept_from_a_cut_run"] = true;
  } else {
    auto result = optimize(bridge, o);
    if (!result) {
      out["error"] = "tritondx optimize failed: " + result.error().to_string();
      return finish("failed");
    }
    auto written = write_optimize_outputs(*result);
    if (!written) out["notes"].push_back("the optimize report could not be written: " + written.error().to_string());
    fs::remove_all(dir / "optimize" / "artifacts");
    fs::remove_all(dir / "optimize" / "candidates");
    const SearchNode& original = result->nodes.front();
    const auto& eval = original.evaluation;
    out["gpu"] = original.score.measured;
    if (eval.contains("measurement")) out["card"] = eval["measurement"].value("device", "");
    if (original.score.measured) {
      out["initial"] = timing_json(eval["measurement"].value("timing", nlohmann::json()));
      out["initial"]["roofline_fraction"] = original.score.roofline_fraction;
    }
    if (eval.contains("roofline")) {
      const auto& r = eval["roofline"];
      out["roofline"] = {{"floor_ms", r.value("floor_seconds", 0.0) * 1e3},
                         {"bound", r.value("bound", "")},
                         {"compute_ceiling", r.value("compute_ceiling", "")}};
      // The target whose ceilings it was computed against (the one describing the card).
      if (auto chosen = load_target(o.target))
        if (auto t = target_for_measurement(*chosen, out.value("card", ""))) out["roofline"]["target"] = t->name;
    }
    out["tritondx"] = tritondx_part(*result);
    if (result->best != 0)
      out["tritondx"]["optimized_kernel"] =
          fs::relative(dir / "optimize" / (fs::path(entry.path).stem().string() + ".optimized.py"), dir).string();
    if (options.autotune)
      if (auto grid = grid_on_the_initial(*result)) {
        out["autotune_only"] = std::move(*grid);
        if (!result->tune_best_source.empty()) std::ofstream(dir / "autotune_best.py") << result->tune_best_source;
      }
    out["optimize_wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    std::ofstream(dir / "entry.partial.json") << out.dump(2) << "\n";
  }
  bool measured = out.value("gpu", false);

  // 2: autotune-only, the grid a user would try without tritondx.
  double initial_ms = measured ? out["initial"].value("median_ms", 0.0) : 0;
  if (options.autotune && !out.contains("autotune_only")) {
    auto a = launch_grid(bridge, entry.path, (dir / "autotune").string(), initial_ms, measured);
    if (a) out["autotune_only"] = launch_grid_to_json(*a, initial_ms);
    else out["autotune_only"] = {{"error", a.error().to_string()}};
    // Keep the winning variant's source, not the whole grid.
    std::string keep = a && a->best ? a->variants[*a->best].path : "";
    if (!keep.empty()) fs::copy_file(keep, dir / "autotune_best.py", fs::copy_options::overwrite_existing);
    fs::remove_all(dir / "autotune");
  }

  // 4: torch eager and torch.compile on the task's torch_baseline (or its reference).
  if (options.torch && measured) {
    auto b = bridge.call("baselines", {{"task", entry.path}});
    if (b) {
      out["torch"] = {{"eager", timing_json((*b)["eager"])},
                      {"compile", timing_json((*b)["compile"])},
                      {"compile_error", (*b)["compile_error"]},
                      {"function", b->value("function", "reference")}};
    } else {
      out["torch"] = {{"error", b.error().diagnostic.to_string()}};
    }
  }
  // 5: the kernels chosen above, timed again side by side in interleaved rounds.
  if (measured && options.rounds > 0) {
    auto kernels = interleaved_kernels(out, entry.path, dir.string());
    if (auto part = interleaved_part(bridge, kernels, options.rounds); !part.is_null()) out["interleaved"] = part;
  }
  return finish(measured ? "ok" : "unmeasured");
}

}  // namespace tdx
