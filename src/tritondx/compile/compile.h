// Compiling a task through the bridge: every stage of every kernel it launches.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"

namespace tdx {

struct CompileRequest {
  std::string task_path;
  std::string out_dir;      // where the bridge writes the stage files
  std::string kernel;       // only this kernel; empty = all launched kernels
  int arch = 90;
  bool pass_dumps = false;  // MLIR_ENABLE_DUMP
  bool remarks = true;      // MLIR_ENABLE_DIAGNOSTICS=warnings,remarks
  nlohmann::json what_if;   // one-change experiment (see python/tritondx_bridge/capture.py)
  nlohmann::json autotune_config;  // the config each autotuner compiles: null (the first), an index, or {kernel: index}
  bool include_task = false;  // also return the task's description (saves a bridge call)
};

struct CompiledKernel {
  std::string name;
  std::map<std::string, std::string> files;  // stage -> path: ttir ttgir llir ptx cubin sass passes log
  nlohmann::json launch;     // grid, signature, constexprs, attrs, options
  nlohmann::json metadata;   // num_warps, num_stages, shared, ...
  nlohmann::json resources;  // registers, spills, local, stack
  nlohmann::json remarks;    // [{file, line, col, severity, message, notes}]
  std::vector<std::string> notes;
  double compile_seconds = 0;
};

struct CompileResult {
  std::vector<CompiledKernel> kernels;
  nlohmann::json launches;
  nlohmann::json task_info;  // with include_task: what task_from_json reads
  nlohmann::json cuda_emulation;  // what the capture emulated (compile/capture_notes.h)
};

// Builds CompiledKernels from the bridge's compile reply; `base_dir` resolves relative paths.
CompileResult compile_result_from_json(const nlohmann::json& reply, const std::string& base_dir = {});

std::expected<CompileResult, BridgeFailure> compile_task(const Bridge& bridge, const CompileRequest& request);

}  // namespace tdx
