// `tritondx bench`: the benchmark suite, sharded and resumable (docs/bench.md).
#pragma once

#include "tritondx/cli/commands.h"

namespace tdx::cli {

Runner add_bench_command(CLI::App& app);

}  // namespace tdx::cli
