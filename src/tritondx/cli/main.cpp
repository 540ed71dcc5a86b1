// tritondx: find out why a Triton kernel is slow, from the source down to the compiler.
#include <exception>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "tritondx/cli/commands.h"
#include "tritondx/bench/bench_command.h"
#include "tritondx/optimize/optimize_command.h"

int main(int argc, char** argv) {
  CLI::App app{"tritondx: diagnose and optimize Triton GPU kernels (Triton 3.6, sm_90)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tritondx 0.1.0");
  std::map<std::string, tdx::cli::Runner> runners;
  runners["inspect"] = tdx::cli::add_inspect_command(app);
  runners["diagnose"] = tdx::cli::add_diagnose_command(app);
  runners["rules"] = tdx::cli::add_rules_command(app);
  runners["run"] = tdx::cli::add_run_command(app);
  runners["axis-info"] = tdx::cli::add_axis_info_command(app);
  runners["optimize"] = tdx::cli::add_optimize_command(app);
  runners["recipes"] = tdx::cli::add_recipes_command(app);
  runners["bench"] = tdx::cli::add_bench_command(app);
  runners["task-from"] = tdx::cli::add_task_from_command(app);
  runners["capture"] = tdx::cli::add_capture_command(app);
  runners["paths"] = tdx::cli::add_paths_command(app);
  app.footer(tdx::cli::kExitCodesHelp);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; every other parse error is a usage error (CLI11's
    // own codes, 105-109, are not the table's).
    return app.exit(e) == 0 ? tdx::cli::kExitOk : tdx::cli::kExitUsage;
  }
  try {
    for (auto* sub : app.get_subcommands()) return runners.at(sub->get_name())();
  } catch (const std::exception& e) {
    std::cerr << "tritondx: internal error: " << e.what() << "\n";
    return tdx::cli::kExitInternal;
  }
  return tdx::cli::kExitUsage;
}
