// Access to the per-pass IR dump (MLIR_ENABLE_DUMP): which step ran a pass, the module it saw
// and the module it left, parsed on demand.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "tritondx/ir/mlir.h"
#include "tritondx/ir/pass_dump.h"

namespace tdx {

// Indices into PassDump::steps of every step that ran `pass_name` ("TritonGPUPipeline"), in order.
std::vector<int> find_steps(const PassDump& dump, std::string_view pass_name);
// The first such step at or after step `from`, -1 if none.
int find_step(const PassDump& dump, std::string_view pass_name, int from = 0);

// The IR a step saw, and the IR it left (the next snapshot); null when absent.
const PassSnapshot* snapshot_before(const PassDump& dump, int step);
const PassSnapshot* snapshot_after(const PassDump& dump, int step);

// A whole-module snapshot of the TTIR/TTGIR pipeline (not a function-level one, not LLVM dialect).
bool is_tensor_ir_snapshot(const PassSnapshot& snapshot);

// Parses a whole-module TTIR/TTGIR snapshot; nullopt for other snapshots or on a parse error.
std::optional<MlirModule> parse_snapshot(const PassSnapshot& snapshot, const MlirParseOptions& options = {});

// Line of `op` in the dump file (the snapshot's header line + the op's line in the snapshot).
int dump_line(const PassSnapshot& snapshot, const MlirOp& op);

}  // namespace tdx
