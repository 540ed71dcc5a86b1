// `tritondx optimize TASK`: rewrite, verify, keep the best, report.
#pragma once

#include <CLI/CLI.hpp>

#include "tritondx/core/command.h"

namespace tdx::cli {

Runner add_optimize_command(CLI::App& app);
Runner add_recipes_command(CLI::App& app);

}  // namespace tdx::cli
