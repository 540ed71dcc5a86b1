#include "tritondx/analysis/pass_snapshots.h"

namespace tdx {

std::vector<int> find_steps(const PassDump& dump, std::string_view pass_name) {
  std::vector<int> out;
  for (size_t i = 0; i < dump.steps.size(); ++i)
    if (dump.steps[i].pass_name == pass_name) out.push_back(static_cast<int>(i));
  return out;
}

int find_step(const PassDump& dump, std::string_view pass_name, int from) {
  for (size_t i = static_cast<size_t>(std::max(from, 0)); i < dump.steps.size(); ++i)
    if (dump.steps[i].pass_name == pass_name) return static_cast<int>(i);
  return -1;
}

const PassSnapshot* snapshot_before(const PassDump& dump, int step) {
  if (step < 0 || step >= static_cast<int>(dump.steps.size())) return nullptr;
  int i = dump.steps[static_cast<size_t>(step)].before;
  return i >= 0 && i < static_cast<int>(dump.snapshots.size()) ? &dump.snapshots[static_cast<size_t>(i)] : nullptr;
}

const PassSnapshot* snapshot_after(const PassDump& dump, int step) {
  if (step < 0 || step >= static_cast<int>(dump.steps.size())) return nullptr;
  int i = dump.steps[static_cast<size_t>(step)].after;
  return i >= 0 && i < static_cast<int>(dump.snapshots.size()) ? &dump.snapshots[static_cast<size_t>(i)] : nullptr;
}

bool is_tensor_ir_snapshot(const PassSnapshot& snapshot) {
  if (snapshot.anchor != "builtin.module") return false;
  // After ConvertTritonGPUToLLVM the module is LLVM dialect: large, and no longer TTGIR.
  return snapshot.ir.find("tt.func") != std::string::npos;
}

std::optional<MlirModule> parse_snapshot(const PassSnapshot& snapshot, const MlirParseOptions& options) {
  if (!is_tensor_ir_snapshot(snapshot)) return std::nullopt;
  Stage stage = snapshot.ir.find("ttg.") != std::string::npos ? Stage::Ttgir : Stage::Ttir;
  auto module = parse_mlir(snapshot.ir, stage, options);
  if (!module) return std::nullopt;
  return std::move(*module);
}

int dump_line(const PassSnapshot& snapshot, const MlirOp& op) { return snapshot.line + op.line; }

}  // namespace tdx
