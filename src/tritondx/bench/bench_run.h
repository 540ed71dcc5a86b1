// The ways `tritondx bench` runs its entries: one after another in this process; as a parent
// with one worker process per GPU sharing a queue; as one of those workers; merging the
// results folders of shards run elsewhere (other hosts, a Slurm job array); or only timing the
// chosen kernels of measured entries again (--confirm).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bench/bench_entry.h"
#include "tritondx/bench/bench_suite.h"

namespace tdx {

struct BenchRun {
  BenchOptions options;
  std::string gpu_mode = "auto";        // as given on the command line
  std::vector<BenchEntry> all;          // the whole suite
  std::vector<BenchEntry> selected;     // this invocation's entries
};

int run_sequential(const BenchRun& run);
// One worker process per GPU (CUDA_VISIBLE_DEVICES pinned), all claiming from one queue
// (out/queue.sqlite) and writing one store; progress is printed as entries finish.
int run_workers(const BenchRun& run, const std::vector<std::string>& gpus);
int run_worker(const BenchRun& run, const std::string& worker, const std::string& queue_path);
// Copies every entry result of `dirs` into the run's results folder (a newer result of the
// same entry and source wins) and merges their stores into its store.
int merge_results(const BenchRun& run, const std::vector<std::string>& dirs);

// Only the interleaved rounds (bench_interleaved.h), for entries already measured on the GPU this
// process sees and not yet confirmed (all of them with --force); then the summary.
int run_confirm(const BenchRun& run);

// Rewrites summary.{json,md} and speedups.svg from the results folder and says what it wrote;
// 1 (with the error on stderr) when it could not.
int write_summary(const BenchRun& run);

// One line about an entry's result, for progress output.
std::string bench_one_line(const nlohmann::json& entry);

}  // namespace tdx
