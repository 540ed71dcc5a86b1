#include "tritondx/bench/bench_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "tritondx/bench/bench_entry.h"
#include "tritondx/bench/bench_suite.h"
#include "tritondx/bench/bench_summary.h"

namespace tdx::cli {

namespace fs = std::filesystem;

namespace {

std::string one_line(const nlohmann::json& e) {
  std::string status = e.value("status", "");
  if (status == "failed") return fmt::format("{}: failed: {}", e.value("entry", ""), e.value("error", ""));
  if (status == "unmeasured")
    return fmt::format("{}: not measured (no GPU); {} candidates", e.value("entry", ""),
                       e["tritondx"].value("candidates", 0));
  auto ms = [&](std::initializer_list<const char*> path) {
    const nlohmann::json* at = &e;
    for (const char* k : path) {
      if (!at->is_object() || !at->contains(k)) return std::string("-");
      at = &(*at)[k];
    }
    return at->is_number() ? fmt::format("{:.4f}", at->get<double>()) : std::string("-");
  };
  return fmt::format("{}: initial {} ms, tritondx {} ms ({:.2f}x, {} GPU evals), autotune-only {} ms, torch.compile {} ms",
                     e.value("entry", ""), ms({"initial", "median_ms"}), ms({"tritondx", "median_ms"}),
                     e["tritondx"].value("speedup", 0.0), e["tritondx"].value("gpu_evaluations", 0),
                     ms({"autotune_only", "median_ms"}), ms({"torch", "compile", "median_ms"}));
}

}  // namespace

Runner add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto filters = std::make_shared<std::vector<std::string>>();
  auto shard = std::make_shared<std::string>("1/1");
  auto gpu = std::make_shared<std::string>("auto");
  auto list = std::make_shared<bool>(false);
  auto summary_only = std::make_shared<bool>(false);
  o->suite_dir = std::string(TRITONDX_SOURCE_DIR) + "/bench/suite";
  o->out_dir = std::string(TRITONDX_SOURCE_DIR) + "/bench/results";
  auto* cmd = app.add_subcommand(
      "bench", "Run the benchmark suite: initial kernel, tritondx, autotune-only, torch eager/compile, roofline");
  cmd->add_option("entries", *filters, "Only entries whose id (category/name) contains one of these");
  cmd->add_option("--suite", o->suite_dir, "Suite folder (default: bench/suite)");
  cmd->add_option("--out", o->out_dir, "Results folder (default: bench/results)");
  cmd->add_option("--shard", *shard, "Run shard i of N (entries dealt round-robin), e.g. 2/4");
  cmd->add_option("--gpu", *gpu, "auto (if one is visible), on, off")->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--max-candidates", o->max_candidates, "tritondx's candidates per entry")->check(CLI::Range(0, 1000));
  cmd->add_option("--max-seconds", o->max_seconds, "tritondx's search time per entry")->check(CLI::PositiveNumber);
  cmd->add_flag("--no-autotune", [o](int64_t) { o->autotune = false; }, "Skip the autotune-only grid");
  cmd->add_flag("--no-torch", [o](int64_t) { o->torch = false; }, "Skip torch eager and torch.compile");
  cmd->add_flag("--force", o->force, "Redo entries that already have a result for their current source");
  cmd->add_flag("--list", *list, "List the shard's entries and whether each has a result; run nothing");
  cmd->add_flag("--summary-only", *summary_only, "Only rewrite summary.{json,md} and speedups.svg from the results");
  cmd->add_option("--target", o->target, "Target description under targets/");
  return [o, filters, shard, gpu, list, summary_only, cmd] {
    auto s = parse_shard(*shard);
    if (!s) {
      std::cerr << "error: " << s.error().to_string() << "\n";
      return 2;
    }
    o->suite_dir = fs::absolute(o->suite_dir).lexically_normal().string();
    o->out_dir = fs::absolute(o->out_dir).lexically_normal().string();
    o->gpu = *gpu == "on" ? GpuMode::On : *gpu == "off" ? GpuMode::Off : GpuMode::Auto;
    auto all = discover_entries(o->suite_dir);
    if (!all) {
      std::cerr << "error: " << all.error().to_string() << "\n";
      return 2;
    }
    auto selected = select_entries(*all, *filters, *s);
    if (selected.empty()) {
      std::cerr << "error: no entry of shard " << *shard << " matches the filters\n";
      return 2;
    }
    std::error_code ec;
    fs::create_directories(o->out_dir, ec);
    if (ec) {
      std::cerr << "error: cannot create " << o->out_dir << ": " << ec.message() << "\n";
      return 2;
    }
    o->command = fmt::format("tritondx bench --shard {} --max-candidates {} --gpu {}{}{}", *shard, o->max_candidates,
                             *gpu, o->autotune ? "" : " --no-autotune", o->torch ? "" : " --no-torch");
    for (const auto& f : *filters) o->command += " " + f;
    bool want_gpu = o->gpu != GpuMode::Off;
    if (*list) {
      for (const auto& e : selected)
        std::cout << e.id << (stored_result(*o, e, want_gpu) ? "  (done)" : "") << "\n";
      return 0;
    }
    if (!*summary_only) {
      Bridge bridge(BridgeConfig::from_environment());
      size_t i = 0;
      for (const auto& e : selected) {
        ++i;
        if (!o->force)
          if (auto done = stored_result(*o, e, want_gpu)) {
            std::cout << fmt::format("[{}/{}] {} (kept from an earlier run)\n", i, selected.size(), one_line(*done));
            continue;
          }
        std::cout << fmt::format("[{}/{}] {} ...\n", i, selected.size(), e.id) << std::flush;
        auto r = run_bench_entry(bridge, e, *o);
        std::cout << fmt::format("[{}/{}] {} ({:.0f} s)\n", i, selected.size(), one_line(r),
                                 r.value("wall_seconds", 0.0))
                  << std::flush;
        // The summary after every entry: a run cut short still leaves an up-to-date summary.
        if (auto w = write_bench_summary(o->out_dir, static_cast<int>(all->size())); !w)
          std::cerr << "warning: " << w.error().to_string() << "\n";
      }
    }
    auto written = write_bench_summary(o->out_dir, static_cast<int>(all->size()));
    if (!written) {
      std::cerr << "error: " << written.error().to_string() << "\n";
      return 1;
    }
    for (const auto& p : *written) std::cout << "  wrote " << p << "\n";
    return 0;
  };
}

}  // namespace tdx::cli
