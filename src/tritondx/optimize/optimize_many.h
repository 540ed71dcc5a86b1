// `tritondx optimize A.py B.py ... --workers N | --gpus LIST`: a kernel library over every GPU of a
// host. One `tritondx optimize` process per task, as many at a time as there are workers, each
// pinned to its GPU with CUDA_VISIBLE_DEVICES; workers take the next task from one shared list as
// they finish, workers on one GPU time it one at a time (TRITONDX_GPU_LOCK), and all may write one
// store. Each task is optimized exactly as alone; only the wall time changes.
#pragma once

#include <string>
#include <vector>

#include "tritondx/optimize/optimize_options.h"

namespace tdx {

struct OptimizeManyOptions {
  std::vector<std::string> tasks;
  std::vector<std::string> gpus;  // one worker per entry ("0", "1", or "0", "0" to share one)
  std::string out_dir;            // empty: each task's own default; else <out>/<task stem>/
  OptimizeOptions each;           // the options every task's run gets (store, budgets, gpu mode, ...)
  std::string gpu_mode = "auto";  // as given on the command line
};

// Each task's output folder: --out/<stem> (a stem repeated gets -2, -3, ...), or the task's default.
std::vector<std::string> task_out_dirs(const OptimizeManyOptions& m);

// The command line that optimizes task `i` alone into `out_dir` (argv[0] is this executable).
std::vector<std::string> task_command(const OptimizeManyOptions& m, const std::string& self, size_t i,
                                      const std::string& out_dir);

// Runs every task; prints a line per finished task. 0 when every task's run succeeded.
int optimize_many(const OptimizeManyOptions& m);

}  // namespace tdx
