// `tritondx inspect`: compile a task and show, per kernel, what the compiler made of it.
#pragma once

#include <string>
#include <vector>

#include "tritondx/bridge/bridge.h"
#include "tritondx/compile/compile.h"
#include "tritondx/core/file.h"
#include "tritondx/analysis/kernel_summary.h"
#include "tritondx/inspect/line_view.h"
#include "tritondx/task/task.h"

namespace tdx {

struct InspectOptions {
  std::string task_path;
  std::string kernel;         // empty = every launched kernel
  std::string artifacts_dir;  // where stage files go; empty = a folder under the system temp dir
  bool pass_dumps = false;
  std::string target = "nvidia-h200";
};

struct KernelInspection {
  CompiledKernel compiled;
  KernelSummary summary;
  std::vector<LineView> lines;
};

struct InspectReport {
  Task task;
  std::string artifacts_dir;
  std::string target;
  std::vector<KernelInspection> kernels;
  double compile_seconds = 0;  // the bridge call: Python start, task import, inputs, capture, compiles
  double triton_seconds = 0;   // of which triton.compile itself
  double parse_seconds = 0;    // C++: parsing all stages and building the views
  std::vector<std::string> notes;  // what the capture emulated or could not know (compile/capture_notes.h)
};

// A compile failure keeps the bridge's detail (Triton's message, the source line).
std::expected<InspectReport, BridgeFailure> run_inspect(const Bridge& bridge, const InspectOptions& options);


}  // namespace tdx
