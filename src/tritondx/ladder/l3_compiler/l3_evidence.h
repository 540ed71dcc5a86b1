// Evidence helpers shared by the L3 rules: quoting pass-dump snapshots, remarks and what-if
// compiles as links of an evidence chain.
#pragma once

#include <string>

#include "tritondx/ir/pass_dump.h"
#include "tritondx/ir/program.h"
#include "tritondx/ladder/context.h"

namespace tdx::l3 {

// "TritonGPUPipeline (tritongpu-pipeline)"
std::string pass_label(const PassStep& step);

// Quotes an op of a pass snapshot: stage PassDump, the line in the dump file, and a note that
// names the pass ("IR after TritonGPUScheduleLoops: ...").
EvidenceLink snapshot_evidence(const PassSnapshot& snapshot, const MlirOp& op, std::string note);

// Quotes a compiler remark (stage Remark) at its Python location.
EvidenceLink remark_evidence(const Remark& remark, std::string note);

// Quotes an op of a what-if compile's TTGIR (stage WhatIf).
EvidenceLink what_if_evidence(const MlirOp& op, std::string note);
// A what-if link without an op to quote (the change itself, or a failed compile).
EvidenceLink what_if_note(const nlohmann::json& change, std::string note);

// True when the location is in the task's own file.
bool in_task(const KernelContext& ctx, const SourceLoc& loc);
// The Python line of an op when it is in the task's file (see source_line), else 0.
int task_line(const KernelContext& ctx, const MlirOp& op);

// The compile's num_stages / num_warps (metadata, then the launch options, then the defaults).
int num_stages(const KernelContext& ctx);
int num_warps(const KernelContext& ctx);

}  // namespace tdx::l3
