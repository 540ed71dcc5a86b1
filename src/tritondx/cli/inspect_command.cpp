#include <iostream>
#include <memory>

#include "tritondx/cli/commands.h"
#include "tritondx/cli/failure.h"
#include "tritondx/inspect/inspect.h"
#include "tritondx/report/inspect_report.h"

namespace tdx::cli {

Runner add_inspect_command(CLI::App& app) {
  auto opts = std::make_shared<InspectOptions>();
  auto format = std::make_shared<std::string>("text");
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("inspect", "Compile a task for sm_90 and show what every stage made of each line");
  cmd->add_option("task", opts->task_path, "Task file (see docs/task-format.md)")->required();
  cmd->add_option("--kernel", opts->kernel, "Only this kernel");
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"text", "json", "html"}));
  cmd->add_option("-o,--output", *output, "Write the report here instead of stdout");
  cmd->add_option("--artifacts", opts->artifacts_dir, "Folder for the stage files (default: under the temp dir, where those of the last 4 finished runs are kept)");
  cmd->add_flag("--pass-dumps", opts->pass_dumps, "Also record the IR before every MLIR pass");
  cmd->add_option("--target", opts->target, "Target description under targets/");
  return [opts, format, output] {
    auto bridge = Bridge(BridgeConfig::from_environment());
    auto report = run_inspect(bridge, *opts);
    if (!report) {
      std::cerr << format_failure(report.error());
      return 1;
    }
    std::string text;
    if (*format == "json") text = inspect_to_json(*report).dump(2) + "\n";
    else if (*format == "html") text = render_inspect_html(*report);
    else text = render_inspect_text(*report);
    return write_output(*output, text) ? 0 : 1;
  };
}

}  // namespace tdx::cli
