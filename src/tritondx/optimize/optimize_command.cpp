#include "tritondx/optimize/optimize_command.h"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "tritondx/bridge/gpu_worker.h"
#include "tritondx/optimize/optimize_many.h"
#include "tritondx/optimize/optimize_report.h"
#include "tritondx/optimize/progress_printer.h"
#include "tritondx/optimize/search.h"

namespace tdx::cli {

Runner add_optimize_command(CLI::App& app) {
  auto o = std::make_shared<OptimizeOptions>();
  auto gpu = std::make_shared<std::string>("auto");
  auto format = std::make_shared<std::string>("text");
  auto quiet = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "optimize", "Rewrite the kernel from its diagnosis, verify each candidate, keep the best, and report");
  auto tasks = std::make_shared<std::vector<std::string>>();
  auto workers = std::make_shared<int>(1);
  auto gpus = std::make_shared<std::vector<std::string>>();
  cmd->add_option("tasks", *tasks, "Task files (see docs/task-format.md); several run as a kernel library")
      ->required();
  cmd->add_option("--workers", *workers, "Tasks optimized at once, one process per GPU (several tasks)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--gpus", *gpus, "The GPUs the workers are pinned to (CUDA_VISIBLE_DEVICES), default 0..workers-1")
      ->delimiter(',')
      ->allow_extra_args(false);  // one comma list: the names after it stay positional
  cmd->add_option("--out", o->out_dir, "Output folder (default: <task dir>/<task stem>.tritondx/)");
  cmd->add_option("--store", o->store_path, "SQLite store (default: <out>/store.sqlite)");
  cmd->add_flag("--resume", o->resume, "Continue the latest unfinished run of this task in the store");
  cmd->add_option("--gpu", *gpu, "Measure correctness and timing on the GPU: auto (if one is visible), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--max-candidates", o->max_candidates, "Candidates to evaluate at most")->check(CLI::Range(0, 10000));
  cmd->add_option("--max-seconds", o->max_seconds, "Wall-time budget of the search (time waiting for a GPU that other bench workers hold is not counted)")->check(CLI::PositiveNumber);
  cmd->add_option("--max-depth", o->max_depth, "Rewrites stacked on the original at most")->check(CLI::Range(1, 64));
  cmd->add_option("--min-gain", o->min_gain, "A child must beat its parent by this fraction")->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--no-profile", [o](int64_t) { o->profile = false; },
                "On a GPU: skip Nsight Compute (L1 then has timing and roofline only)");
  cmd->add_flag("--no-tune", [o](int64_t) { o->tune = false; },
                "On a GPU: skip the last stage, a launch-parameter grid (blocks, num_warps, num_stages) on the best kernel");
  cmd->add_option("--tune-below-roofline", o->tune_below_roofline,
                  "Skip that last stage when the best kernel already reaches this fraction of its roofline floor")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--recording", o->recording,
                  "A GPU recording of the original kernel (run.json, ncu CSV exports) for its L1 findings")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--llm", o->llm, "Also ask the configured LLM endpoint for candidates (see docs/llm.md)");
  cmd->add_flag("--no-recipes", [o](int64_t) { o->recipes = false; },
                "With --llm: the LLM's candidates only (no built-in recipe, no launch tuning), asked once per "
                "kernel with the whole diagnosis; the search of an LLM-only run or an ablation (docs/llm.md)");
  cmd->add_option("--llm-attempts", o->llm_attempts,
                  "With --llm: chat requests per expansion, each an independent reply (use a temperature above 0)")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--llm-config", o->llm_config, "LLM configuration file (JSON)");
  cmd->add_option("--llm-evidence", o->llm_evidence,
                  "What the LLM is told: full (the whole diagnosis), symptom (measured kernel-level symptoms only) "
                  "or none (the source alone); the arms of the evidence ablation (docs/llm.md)")
      ->check(CLI::IsMember({"full", "symptom", "none"}));
  cmd->add_option("--target", o->target, "Target description under targets/");
  cmd->add_option("--format", *format, "Terminal output")->check(CLI::IsMember({"text", "json", "markdown"}));
  cmd->add_flag("-q,--quiet", *quiet, "No progress on stderr (one line per candidate; a live status line on a terminal)");
  return [o, gpu, format, tasks, workers, gpus, quiet] {
    o->gpu = *gpu == "on" ? GpuMode::On : *gpu == "off" ? GpuMode::Off : GpuMode::Auto;
    if (tasks->size() > 1 || *workers > 1 || !gpus->empty()) {
      if (!o->recording.empty()) {
        std::cerr << "error: --recording is one task's GPU recording; give it with that task alone\n";
        return 2;
      }
      if (*format != "text") {
        std::cerr << "error: --format applies to one task; with several, each writes report.json and report.md\n";
        return 2;
      }
      auto pinned = worker_gpus(*workers, *gpus);
      if (!pinned) {
        std::cerr << "error: " << pinned.error().message << "\n";
        return 2;
      }
      return optimize_many({*tasks, *pinned, o->out_dir, *o, *gpu});
    }
    o->task_path = tasks->front();
    Bridge bridge(BridgeConfig::from_environment());
    std::optional<ProgressPrinter> progress;
    if (!*quiet) {
      progress.emplace(std::cerr, isatty(STDERR_FILENO) == 1, o->max_seconds, o->max_candidates);
      o->on_candidate = [&progress](const CandidateProgress& p) { progress->candidate(p); };
    }
    auto result = optimize(bridge, *o);
    progress.reset();
    if (!result) {
      std::cerr << "error: " << result.error().to_string() << "\n";
      return 1;
    }
    auto written = write_optimize_outputs(*result);
    if (*format == "json") std::cout << optimize_to_json(*result).dump(2) << "\n";
    else if (*format == "markdown") std::cout << render_optimize_markdown(*result);
    else std::cout << render_optimize_text(*result);
    if (!written) {
      std::cerr << "error: " << written.error().to_string() << "\n";
      return 1;
    }
    if (*format == "text")
      for (const auto& p : *written) std::cout << "  wrote " << p << "\n";
    return 0;
  };
}

}  // namespace tdx::cli
