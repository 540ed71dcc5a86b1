// Subcommands of the tritondx command line. Each registers its options on the CLI11 app
// and returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include "tritondx/core/command.h"

namespace tdx::cli {

Runner add_inspect_command(CLI::App& app);
Runner add_diagnose_command(CLI::App& app);
Runner add_rules_command(CLI::App& app);
Runner add_run_command(CLI::App& app);
Runner add_axis_info_command(CLI::App& app);
Runner add_task_from_command(CLI::App& app);
Runner add_paths_command(CLI::App& app);
Runner add_capture_command(CLI::App& app);


}  // namespace tdx::cli
