// What a rule sees: the task, its AST and captured launch, and (for L2/L3) the compiled
// kernel with every stage parsed, the source map, the summary, and a what-if runner.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/analysis/kernel_summary.h"
#include "tritondx/ir/program.h"
#include "tritondx/ir/source_map.h"
#include "tritondx/ladder/finding.h"
#include "tritondx/pyast/py_ast.h"
#include "tritondx/target/target.h"
#include "tritondx/task/launch_info.h"
#include "tritondx/task/task.h"

namespace tdx {

class AxisInfoAnalysis;
struct Measurement;
struct Roofline;
struct NcuProfile;
struct HotLine;

// A what-if compile: the same task with exactly one change (see capture.py's what_if).
struct WhatIfResult {
  nlohmann::json change;
  std::optional<Program> program;  // nullopt if the compile failed
  std::string error;
};

using WhatIfRunner = std::function<WhatIfResult(const nlohmann::json& change)>;

struct KernelContext {
  const Task* task = nullptr;
  const PyModule* ast = nullptr;          // whole task module
  const PyNode* function = nullptr;       // the kernel's FunctionDef
  const LaunchInfo* launch = nullptr;     // its first captured launch
  const Program* program = nullptr;       // null at L0 or when the compile failed
  const SourceMap* source_map = nullptr;
  const KernelSummary* summary = nullptr;
  const TargetDescription* target = nullptr;
  nlohmann::json tolerance;               // the task's TOLERANCE (or null)
  long long min_bytes = 0;                // the task's minimum bytes (0 if unknown)
  long long flops = 0;                    // the task's FLOP count (0 if unknown)
  WhatIfRunner what_if;                   // empty when what-if compiles are off
  std::function<const AxisInfoAnalysis&()> axis_info;  // lazy, over program->ttir; empty if no TTIR
  // L1 (GPU): null without a measurement / without Nsight Compute.
  const Measurement* measurement = nullptr;
  const Roofline* roofline = nullptr;
  const NcuProfile* profile = nullptr;
  const std::vector<HotLine>* hot_lines = nullptr;

  std::string kernel_name() const;
  std::string_view source_line(int line) const { return task ? task->line(line) : std::string_view(); }
  // An evidence link quoting the Python source line.
  EvidenceLink source_evidence(int line, std::string note = {}) const;
  // An evidence link quoting the MLIR op (its IR line and source loc).
  EvidenceLink op_evidence(Stage stage, const MlirOp& op, std::string note = {}) const;
};

}  // namespace tdx
