// A compiled kernel with every stage parsed: what L2/L3 rules and `inspect` read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/compile/compile.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/core/file.h"
#include "tritondx/core/source_loc.h"
#include "tritondx/ir/llvm_ir.h"
#include "tritondx/ir/mlir.h"
#include "tritondx/ir/pass_dump.h"
#include "tritondx/ir/ptx.h"
#include "tritondx/ir/sass.h"

namespace tdx {

// A compiler remark or warning (MLIR_ENABLE_DIAGNOSTICS), located at a Python line.
// An MLIR note attached to a remark ("operand defined here"), at its own location (line 0 when
// the bridge gave only its text).
struct RemarkNote {
  SourceLoc loc;
  std::string message;
};

struct Remark {
  SourceLoc loc;
  std::string severity;  // "remark" | "warning"
  std::string message;
  std::vector<RemarkNote> notes;
};

struct KernelResources {
  int registers = 0;
  int spill_stores = 0;  // bytes
  int spill_loads = 0;   // bytes
  int stack_frame = 0;   // bytes
  int local_bytes = 0;
  int shared_bytes = 0;  // dynamic shared memory (ttg.shared / metadata.shared)
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
};

struct Program {
  std::string kernel;
  std::optional<MlirModule> ttir;
  std::optional<MlirModule> ttgir;
  std::optional<LlvmModule> llir;
  std::optional<PtxModule> ptx;
  std::optional<SassModule> sass;
  std::optional<PassDump> passes;
  std::vector<Remark> remarks;
  KernelResources resources;
  nlohmann::json launch;
  nlohmann::json metadata;
  // Stages that could not be read or parsed: reported, never fatal.
  std::vector<Diagnostic> problems;
};

// Reads and parses every stage file of a compiled kernel. A stage that fails to parse
// is left empty and its Diagnostic is added to `problems`.
Program load_program(const CompiledKernel& kernel);

}  // namespace tdx
