#include "tritondx/bench/bench_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "tritondx/bench/bench_run.h"
#include "tritondx/bench/bench_summary.h"
#include "tritondx/bridge/gpu_worker.h"
#include "tritondx/core/install_paths.h"

namespace tdx::cli {

namespace fs = std::filesystem;

Runner add_bench_command(CLI::App& app) {
  auto run = std::make_shared<BenchRun>();
  auto& o = run->options;
  auto filters = std::make_shared<std::vector<std::string>>();
  auto shard = std::make_shared<std::string>("1/1");
  auto list = std::make_shared<bool>(false);
  auto summary_only = std::make_shared<bool>(false);
  auto confirm = std::make_shared<bool>(false);
  auto workers = std::make_shared<int>(1);
  auto gpus = std::make_shared<std::vector<std::string>>();
  auto worker = std::make_shared<std::string>();
  auto queue = std::make_shared<std::string>();
  auto merge = std::make_shared<std::vector<std::string>>();
  o.suite_dir = (data_root() / "bench" / "suite").string();
  // An installed engine writes its results where it is run, never into its own install.
  o.out_dir = running_installed() ? "bench-results" : (data_root() / "bench" / "results").string();
  auto* cmd = app.add_subcommand(
      "bench", "Run the benchmark suite: initial kernel, tritondx, autotune-only, torch eager/compile, roofline");
  cmd->add_option("entries", *filters,
                  "Only these entries: an entry's whole id (category/name) selects it alone, other text "
                  "the ids containing it");
  cmd->add_option("--suite", o.suite_dir, "Suite folder (default: bench/suite)");
  cmd->add_option("--out", o.out_dir, "Results folder (default: bench/results of the checkout; ./bench-results when installed)");
  cmd->add_option("--shard", *shard, "Run shard i of N (entries dealt round-robin), e.g. 2/4");
  cmd->add_option("--gpu", run->gpu_mode, "auto (if one is visible), on, off")->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--max-candidates", o.max_candidates, "tritondx's candidates per entry")->check(CLI::Range(0, 1000));
  cmd->add_option("--max-seconds", o.max_seconds, "tritondx's search time per entry")->check(CLI::PositiveNumber);
  cmd->add_flag("--no-autotune", [run](int64_t) { run->options.autotune = false; }, "Skip the autotune-only grid");
  cmd->add_flag("--no-torch", [run](int64_t) { run->options.torch = false; }, "Skip torch eager and torch.compile");
  cmd->add_option("--rounds", o.rounds,
                  "Interleaved rounds timing the initial kernel, tritondx's and autotune-only's again side by "
                  "side in one process (0: skip)")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--stop-after", o.stop_after,
                  "Start no entry after this many seconds; the started ones finish (resume by running again)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--force", o.force, "Redo entries that already have a result for their current source");
  cmd->add_flag("--list", *list, "List the shard's entries and whether each has a result; run nothing");
  cmd->add_flag("--summary-only", *summary_only, "Only rewrite summary.{json,md} and speedups.svg from the results");
  cmd->add_flag("--confirm", *confirm,
                "Only time the kernels of entries already measured on this GPU again in interleaved rounds "
                "(initial, tritondx, autotune-only) and add them to their results");
  cmd->add_option("--workers", *workers, "Worker processes, one per GPU, sharing a queue")->check(CLI::Range(1, 64));
  cmd->add_option("--gpus", *gpus, "The GPUs the workers are pinned to (CUDA_VISIBLE_DEVICES), default 0..workers-1")
      ->delimiter(',')
      ->allow_extra_args(false);  // one comma list: the names after it stay positional
  cmd->add_option("--merge", *merge, "Merge these results folders (shards run elsewhere) into --out, then summarize");
  cmd->add_flag("--allow-mixed-cards", o.allow_mixed_cards,
                "With --merge: also take entries measured on a GPU other than the one the results in --out were "
                "measured on (refused by default: the summary would mix cards)");
  cmd->add_option("--worker", *worker, "(internal) run as this worker of the queue given by --queue")->group("");
  cmd->add_option("--queue", *queue, "(internal) the workers' queue")->group("");
  cmd->add_option("--target", o.target, "Target description under targets/");
  return [run, filters, shard, list, summary_only, confirm, workers, gpus, worker, queue, merge] {
    auto& o = run->options;
    auto s = parse_shard(*shard);
    if (!s) {
      std::cerr << "error: " << s.error().to_string() << "\n";
      return 2;
    }
    o.suite_dir = fs::absolute(o.suite_dir).lexically_normal().string();
    o.out_dir = fs::absolute(o.out_dir).lexically_normal().string();
    o.gpu = run->gpu_mode == "on" ? GpuMode::On : run->gpu_mode == "off" ? GpuMode::Off : GpuMode::Auto;
    auto all = discover_entries(o.suite_dir);
    if (!all) {
      std::cerr << "error: " << all.error().to_string() << "\n";
      return 2;
    }
    run->all = *all;
    std::error_code ec;
    fs::create_directories(o.out_dir, ec);
    if (ec) {
      std::cerr << "error: cannot create " << o.out_dir << ": " << ec.message() << "\n";
      return 2;
    }
    o.command = fmt::format("tritondx bench --shard {} --max-candidates {} --gpu {}{}{} --rounds {}", *shard,
                            o.max_candidates, run->gpu_mode, o.autotune ? "" : " --no-autotune",
                            o.torch ? "" : " --no-torch", o.rounds);
    for (const auto& f : *filters) o.command += " " + f;
    if (!merge->empty()) return merge_results(*run, *merge);
    if (*summary_only) return write_bench_summary(o.out_dir, static_cast<int>(all->size()), o.suite_dir) ? 0 : 1;
    if (!worker->empty() || !queue->empty()) {
      if (worker->empty() || queue->empty()) {
        std::cerr << "error: --worker and --queue go together\n";
        return 2;
      }
      return run_worker(*run, *worker, *queue);
    }
    run->selected = select_entries(*all, *filters, *s);
    if (run->selected.empty()) {
      std::cerr << "error: no entry of shard " << *shard << " matches the filters\n";
      return 2;
    }
    if (*list) {
      for (const auto& e : run->selected)
        std::cout << e.id << (stored_result(o, e, o.gpu != GpuMode::Off) ? "  (done)" : "") << "\n";
      return 0;
    }
    if (*confirm) return run_confirm(*run);
    auto pinned = worker_gpus(*workers, *gpus);
    if (!pinned) {
      std::cerr << "error: " << pinned.error().message << "\n";
      return 2;
    }
    if (pinned->size() > 1 || *workers > 1) return run_workers(*run, *pinned);
    return run_sequential(*run);
  };
}

}  // namespace tdx::cli
