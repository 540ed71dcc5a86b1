// `tritondx optimize TASK`: rewrite, verify, keep the best, report.
#pragma once

#include "tritondx/cli/commands.h"

namespace tdx::cli {

Runner add_optimize_command(CLI::App& app);
Runner add_recipes_command(CLI::App& app);

}  // namespace tdx::cli
