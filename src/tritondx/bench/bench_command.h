// `tritondx bench`: the benchmark suite, sharded and resumable (docs/bench.md).
#pragma once

#include <CLI/CLI.hpp>

#include "tritondx/core/command.h"

namespace tdx::cli {

Runner add_bench_command(CLI::App& app);

}  // namespace tdx::cli
