#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "tritondx/cli/commands.h"
#include "tritondx/cli/failure.h"
#include "tritondx/task/task_from.h"

namespace tdx::cli {

namespace {

std::string byte_size(long long bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string render_result(const TaskFromResult& r) {
  std::string out = fmt::format("wrote {}\n  from {}", r.task_path, r.source_path);
  out += r.kernel_file.has_separator
             ? fmt::format(" ({} line(s) of test code from the `####` separator on dropped)\n",
                           r.kernel_file.dropped_lines)
             : " (the whole file)\n";
  out += "  capture saw launch() launch:\n";
  for (const auto& l : r.launches)
    out += fmt::format("    {}  grid ({}{}){}\n", l.kernel, fmt::join(l.grid, ", "), l.grid.size() == 1 ? "," : "",
                       l.count > 1 ? fmt::format("  x{}", l.count) : "");
  out += fmt::format("  outputs: {}; {} (_OUTPUT_BYTES in bytes_moved)\n", r.outputs_described,
                     byte_size(r.output_bytes));
  out += fmt::format("next:\n  tritondx diagnose {}\n  tritondx optimize {}\n", r.task_path, r.task_path);
  return out;
}

}  // namespace

Runner add_task_from_command(CLI::App& app) {
  auto o = std::make_shared<TaskFromOptions>();
  auto* cmd =
      app.add_subcommand("task-from", "Make a task from a kernel file: its wrapper's call and the inputs' shapes");
  cmd->add_option("file", o->file,
                  "Kernel file: @triton.jit kernels and a wrapper (test code after a `####` line is dropped)")
      ->required();
  cmd->add_option("--call", o->call, "The wrapper's call, in Python: \"rms_norm(x, w, eps=1e-6)\"")->required();
  cmd->add_option("--inputs", o->inputs,
                  "The call's inputs, in order: \"x: (8192, 4096) float16, idx: (4096,) int64 in [0, 32000), "
                  "n: int = 8\"")
      ->required();
  cmd->add_option("--out", o->out, "Task file to write (default: <FILE stem>.task.py next to FILE)");
  cmd->add_flag("--force", o->force, "Overwrite an existing task file");
  return [o] {
    Bridge bridge(BridgeConfig::from_environment());
    auto result = make_task_from(bridge, *o);
    if (!result) {
      std::cerr << format_failure(BridgeFailure{result.error(), "", {}});
      return 1;
    }
    std::cout << render_result(*result);
    return 0;
  };
}

}  // namespace tdx::cli
