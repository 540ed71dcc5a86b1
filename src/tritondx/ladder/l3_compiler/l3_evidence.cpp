#include "tritondx/ladder/l3_compiler/l3_evidence.h"

#include <fmt/format.h>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_snapshots.h"
#include "tritondx/ir/source_map.h"

namespace tdx::l3 {

std::string pass_label(const PassStep& step) { return fmt::format("{} ({})", step.pass_name, step.pass_arg); }

EvidenceLink snapshot_evidence(const PassSnapshot& snapshot, const MlirOp& op, std::string note) {
  EvidenceLink e;
  e.stage = Stage::PassDump;
  e.loc = op.loc.known() ? op.loc : op.call_site;
  e.ir_line = dump_line(snapshot, op);
  e.quote = op_quote(op);
  e.note = std::move(note);
  return e;
}

EvidenceLink remark_evidence(const Remark& remark, std::string note) {
  EvidenceLink e;
  e.stage = Stage::Remark;
  e.loc = remark.loc;
  e.quote = fmt::format("{}:{}:{}: {}: {}", remark.loc.file, remark.loc.line, remark.loc.col, remark.severity,
                        remark.message);
  e.note = std::move(note);
  return e;
}

EvidenceLink what_if_evidence(const MlirOp& op, std::string note) {
  EvidenceLink e;
  e.stage = Stage::WhatIf;
  e.loc = op.loc;
  e.ir_line = op.line;
  e.quote = op_quote(op);
  e.note = std::move(note);
  return e;
}

EvidenceLink what_if_note(const nlohmann::json& change, std::string note) {
  EvidenceLink e;
  e.stage = Stage::WhatIf;
  e.quote = "what-if " + change.dump();
  e.note = std::move(note);
  return e;
}

bool in_task(const KernelContext& ctx, const SourceLoc& loc) {
  return loc.known() && ctx.task && same_source_file(loc.file, ctx.task->path);
}

int task_line(const KernelContext& ctx, const MlirOp& op) {
  return ctx.task ? source_line(op, ctx.task->path) : 0;
}

int num_stages(const KernelContext& ctx) {
  if (ctx.program && ctx.program->metadata.is_object() && ctx.program->metadata.contains("num_stages") &&
      ctx.program->metadata["num_stages"].is_number_integer())
    return ctx.program->metadata["num_stages"].get<int>();
  if (ctx.launch) return ctx.launch->num_stages();
  return 3;
}

int num_warps(const KernelContext& ctx) {
  if (ctx.program && ctx.program->ttgir)
    if (auto w = ctx.program->ttgir->num_warps()) return static_cast<int>(*w);
  if (ctx.launch) return ctx.launch->num_warps();
  return 4;
}

}  // namespace tdx::l3
