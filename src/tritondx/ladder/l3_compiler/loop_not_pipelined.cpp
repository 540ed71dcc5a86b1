// l3-loop-not-pipelined: a loop's global loads were not software-pipelined, and which of
// Triton 3.6's pipeliner preconditions failed (read from the AssignLatencies / ScheduleLoops
// snapshots of the pass dump), confirmed by a what-if compile when a launch change can lift it.
#include <map>
#include <set>

#include <fmt/format.h>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_snapshots.h"
#include "tritondx/analysis/pipelining.h"
#include "tritondx/ladder/l3_compiler/l3_evidence.h"
#include "tritondx/ladder/l3_compiler/rules.h"

namespace tdx {
namespace {

using namespace l3;

std::string join_lines(const std::set<int>& lines) {
  std::string out;
  for (int l : lines) out += (out.empty() ? "" : ", ") + std::to_string(l);
  return out;
}

struct Snapshots {
  const PassSnapshot* pre = nullptr;    // before AssignLatencies
  const PassSnapshot* sched = nullptr;  // after ScheduleLoops (before Pipeline)
};

class LoopNotPipelinedRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-loop-not-pipelined"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "A loop's global loads are not software-pipelined, and the rule names the Triton 3.6 precondition "
           "that failed. It reads the per-pass dump: the TTGIR before TritonGPUAssignLatencies (what the "
           "pipeliner was offered), `tt.latency` after it (the loads it picked), `loop.stage` and "
           "`tt.scheduled_max_stage` after TritonGPUScheduleLoops, and the final TTGIR (async copies or TMA). "
           "Causes: no dot in the loop and no `tt.num_stages` on it (pipelineWithoutDot needs "
           "`tl.range(..., num_stages=N)`), num_stages <= 1, an outer loop, a loop-carried value of distance > 1, "
           "a load narrower than 32 bits (cp.async copies 4, 8 or 16 bytes), a load that feeds no dot A/B "
           "operand, an indirection level >= num_stages - 1, or a load under a conditional. When a launch "
           "change can lift the cause (num_stages, an argument's divisibility) a what-if compile confirms it.";
  }
  RuleNeeds needs() const override { return {.program = true, .pass_dumps = true, .what_if = true}; }
  nlohmann::json options() const override {
    return {{"what_if", what_if_}, {"what_if_num_stages", what_if_num_stages_}};
  }
  void configure(const nlohmann::json& o) override {
    what_if_ = o.value("what_if", what_if_);
    what_if_num_stages_ = o.value("what_if_num_stages", what_if_num_stages_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  void report_loop(const KernelContext& ctx, const PipeliningAnalysis& a, const LoopPipelining& loop,
                   const Snapshots& snaps, FindingSink& sink) const;
  void report_load(const KernelContext& ctx, const PipeliningAnalysis& a, const LoopPipelining& loop,
                   const LoadPipelining& load, const Snapshots& snaps, FindingSink& sink) const;
  // Runs a what-if compile and checks that the loads of `lines` became async copies or TMA.
  bool confirm(const KernelContext& ctx, const nlohmann::json& change, const std::set<int>& lines,
               const std::string& what, Finding& f) const;

  bool what_if_ = true;
  int what_if_num_stages_ = 3;
};

// Evidence common to every finding: the load as the pipeliner saw it, with no schedule, and
// the synchronous load left in the final TTGIR.
void add_load_evidence(const KernelContext& ctx, const PipeliningAnalysis& a, const LoadPipelining& load,
                       const Snapshots& snaps, Finding& f) {
  const MlirOp& pre_op = a.pre->ops[static_cast<size_t>(load.pre_op)];
  f.evidence.push_back(snapshot_evidence(*snaps.pre, pre_op,
                                         "IR before TritonGPUAssignLatencies: the load offered to the pipeliner"));
  if (a.sched && snaps.sched)
    for (const auto& op : a.sched->ops)
      if (op.name == pre_op.name && op.loc == pre_op.loc) {
        f.evidence.push_back(snapshot_evidence(
            *snaps.sched, op,
            "IR after TritonGPUScheduleLoops: no tt.latency and no loop.stage on this load (not scheduled)"));
        break;
      }
  if (ctx.program->ttgir)
    for (const auto& op : ctx.program->ttgir->ops)
      if (op.name == pre_op.name && op.loc == pre_op.loc) {
        f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, op, "final TTGIR: still a synchronous load"));
        break;
      }
}

bool LoopNotPipelinedRule::confirm(const KernelContext& ctx, const nlohmann::json& change, const std::set<int>& lines,
                                   const std::string& what, Finding& f) const {
  if (!what_if_ || !ctx.what_if) return false;
  WhatIfResult r = ctx.what_if(change);
  if (!r.program || !r.program->ttgir) {
    f.evidence.push_back(what_if_note(change, "what-if compile failed: " + r.error));
    return false;
  }
  const MlirModule& m = *r.program->ttgir;
  for (const auto& op : m.ops) {
    int line = source_line(op, ctx.task->path);
    if (!lines.count(line)) continue;
    if (op.name == "ttg.async_copy_global_to_local" || op.name == "ttng.async_tma_copy_global_to_local") {
      f.evidence.push_back(what_if_evidence(
          op, fmt::format("what-if {} ({}): the load of line {} becomes an asynchronous copy", change.dump(), what,
                          line)));
      return true;
    }
  }
  f.evidence.push_back(
      what_if_note(change, fmt::format("what-if {} ({}): the loads of line(s) {} are still synchronous", change.dump(),
                                       what, join_lines(lines))));
  return false;
}

void LoopNotPipelinedRule::report_loop(const KernelContext& ctx, const PipeliningAnalysis& a,
                                       const LoopPipelining& loop, const Snapshots& snaps, FindingSink& sink) const {
  std::set<int> lines;
  for (const auto& l : loop.loads)
    if (l.line > 0) lines.insert(l.line);
  Finding f;
  f.loc = SourceLoc{ctx.task->path, loop.line, 0};
  f.symptom = fmt::format("the loop at line {} is not software-pipelined: its global load(s) on line(s) {} stay "
                          "synchronous, so every iteration waits for memory latency",
                          loop.line, join_lines(lines));
  f.evidence.push_back(ctx.source_evidence(loop.line, "the loop"));
  const MlirOp& fop = a.pre->ops[static_cast<size_t>(loop.pre_op)];
  std::string loop_note = fmt::format(
      "IR before TritonGPUAssignLatencies: the scf.for ({} dot in its body, {})", loop.has_dot ? "a" : "no",
      loop.loop_num_stages ? fmt::format("tt.num_stages = {}", *loop.loop_num_stages) : "no tt.num_stages attribute");
  f.evidence.push_back(snapshot_evidence(*snaps.pre, fop, loop_note));
  int shown = 0;
  for (const auto& l : loop.loads)
    if (shown++ < 2) add_load_evidence(ctx, a, l, snaps, f);

  switch (loop.blocker) {
    case PipelineBlocker::NoDot: {
      f.cause = "TritonGPUAssignLatencies only collects loads that feed a dot's A/B operands; in a loop without a dot "
                "(pipelineWithoutDot) it considers loads only when the loop carries the `tt.num_stages` attribute, "
                "which Triton writes for `tl.range(lo, hi, step, num_stages=N)`. This loop has neither, so no load "
                "got a latency, TritonGPUScheduleLoops assigned no stages and TritonGPUPipeline left the loads "
                "synchronous. A what-if compile cannot test this: no launch option adds the attribute, only the "
                "source change can.";
      f.confidence = 0.9;
      f.proposals.push_back({"loop-num-stages",
                             "iterate with `tl.range(..., num_stages=3)` so the streaming loads are prefetched "
                             "with cp.async a few iterations ahead",
                             {{"line", loop.line}, {"num_stages", what_if_num_stages_}}});
      break;
    }
    case PipelineBlocker::NumStages: {
      bool from_loop = loop.loop_num_stages.has_value();
      f.cause = fmt::format(
          "The pipeliner skips loops whose num_stages is <= 1; this loop's is {} ({}). No load got a latency and "
          "the loop was left synchronous.",
          loop.num_stages, from_loop ? "written on the loop: `tl.range(..., num_stages=...)`" : "the launch option");
      f.confidence = 0.85;
      if (!from_loop) {
        nlohmann::json change = {{"num_stages", what_if_num_stages_}};
        if (confirm(ctx, change, lines, "the launch's num_stages raised", f)) {
          f.confidence = 0.97;
          f.cause += fmt::format(" Confirmed: with num_stages={} the loads become cp.async copies.", what_if_num_stages_);
        }
        f.proposals.push_back({"set-num-stages", "launch with num_stages=3 (or 4); watch shared memory",
                               {{"num_stages", what_if_num_stages_}}});
      } else {
        f.proposals.push_back({"loop-num-stages", "raise the num_stages of the tl.range loop to 3",
                               {{"line", loop.line}, {"num_stages", what_if_num_stages_}}});
      }
      break;
    }
    case PipelineBlocker::OuterLoop: {
      for (int k : loop_body(*a.pre, loop.pre_op))
        if (a.pre->ops[static_cast<size_t>(k)].name == "scf.for" || a.pre->ops[static_cast<size_t>(k)].name == "scf.while") {
          f.evidence.push_back(snapshot_evidence(*snaps.pre, a.pre->ops[static_cast<size_t>(k)],
                                                 "IR before TritonGPUAssignLatencies: a loop nested in this one"));
          break;
        }
      f.cause = "Triton pipelines only innermost loops (isOuterLoop in AssignLatencies): this loop contains another "
                "loop, so the loads in its own body are issued synchronously at every outer iteration.";
      f.confidence = 0.8;
      f.proposals.push_back({kAdvice,
                             "move these loads into the inner loop, hoist them out of the outer loop, or flatten the "
                             "nest (`tl.range(..., flatten=True)`)",
                             {{"line", loop.line}}});
      break;
    }
    case PipelineBlocker::Distance: {
      f.evidence.push_back(snapshot_evidence(
          *snaps.pre, a.pre->ops[static_cast<size_t>(loop.distance_yield)],
          "IR before TritonGPUAssignLatencies: the loop yields a block argument unchanged (distance > 1)"));
      f.cause = "The loop yields one of its own block arguments (e.g. `a, b = b, new` swaps loop-carried values), "
                "so a value depends on the iteration two steps back; loopHasDistGreaterThanOne rejects such loops "
                "before any load is considered.";
      f.confidence = 0.8;
      f.proposals.push_back({kAdvice,
                             "carry only values computed in the current iteration (recompute the older one)",
                             {{"line", loop.line}}});
      break;
    }
    default:
      return;
  }
  sink.report(std::move(f));
}

void LoopNotPipelinedRule::report_load(const KernelContext& ctx, const PipeliningAnalysis& a,
                                       const LoopPipelining& loop, const LoadPipelining& load, const Snapshots& snaps,
                                       FindingSink& sink) const {
  Finding f;
  f.loc = SourceLoc{ctx.task->path, load.line, 0};
  f.symptom = fmt::format("the load at line {} is not pipelined in the loop of line {}: it stays a synchronous "
                          "tt.load while the loop is scheduled",
                          load.line, loop.line);
  f.evidence.push_back(ctx.source_evidence(load.line, "the load"));
  add_load_evidence(ctx, a, load, snaps, f);
  std::set<int> lines{load.line};
  switch (load.blocker) {
    case PipelineBlocker::Narrow: {
      int width = load.vec * load.element_bits;
      f.symptom = fmt::format("the load at line {} is not pipelined: each access moves {} x {} = {} bits, below the "
                              "32 bits cp.async needs",
                              load.line, load.vec, load.element_bits, width);
      f.cause = fmt::format(
          "AssignLatencies' isSmallLoad rejects loads whose vector width (pointer contiguity and alignment, mask "
          "constancy) times the element size is under 32 bits: cp.async copies only 4, 8 or 16 bytes. Here "
          "vec = {} {}-bit element(s){}.",
          load.vec, load.element_bits,
          load.root_argument.empty() ? "" : fmt::format(", limited by the argument `{}`", load.root_argument));
      f.confidence = 0.8;
      if (!load.root_argument.empty()) {
        nlohmann::json change = {{"assume_divisible", {load.root_argument}}};
        if (confirm(ctx, change, lines, fmt::format("`{}` assumed a multiple of 16", load.root_argument), f)) {
          f.confidence = 0.95;
          f.cause += " Confirmed by a what-if compile.";
        }
      }
      f.proposals.push_back({kAdvice,
                             "make the load at least 4 bytes wide: 16-byte aligned base and strides, a length "
                             "divisible by 16, or `tl.multiple_of` hints when that is guaranteed",
                             {{"line", load.line}, {"argument", load.root_argument}}});
      break;
    }
    case PipelineBlocker::Indirection: {
      f.cause = fmt::format(
          "The load's address depends on {} other load(s) in the loop (indirection level {}); AssignLatencies "
          "drops loads whose level is >= num_stages - 1 = {}.",
          load.indirection, load.indirection, loop.num_stages - 1);
      f.confidence = 0.75;
      if (!loop.loop_num_stages) {
        int stages = load.indirection + 2;
        nlohmann::json change = {{"num_stages", std::max(stages, what_if_num_stages_)}};
        if (confirm(ctx, change, lines, "more stages", f)) f.confidence = 0.93;
      }
      f.proposals.push_back({"set-num-stages", "raise num_stages above the indirection level, or precompute the indices",
                             {{"num_stages", load.indirection + 2}}});
      break;
    }
    case PipelineBlocker::NotDotOperand:
      f.cause = "In a loop with a dot, AssignLatencies only pipelines loads found by walking back from the dot's A "
                "and B operands (the accumulator is skipped); this load feeds neither, so it is issued synchronously "
                "every iteration.";
      f.confidence = 0.6;
      f.proposals.push_back({"hoist-load", "hoist the load out of the loop if it is loop-invariant, or fold it into the "
                             "epilogue", {{"line", load.line}}});
      break;
    case PipelineBlocker::NestedRegion: {
      const MlirOp& op = a.pre->ops[static_cast<size_t>(load.pre_op)];
      if (op.parent >= 0)
        f.evidence.push_back(snapshot_evidence(*snaps.pre, a.pre->ops[static_cast<size_t>(op.parent)],
                                               "the load sits inside this region of the loop body"));
      f.cause = "The load is inside a conditional (scf.if) in the loop body; AssignLatencies walks only the ops of "
                "the loop's own block, so loads under a condition are never pipelined.";
      f.confidence = 0.7;
      f.proposals.push_back({kAdvice, "load unconditionally with a mask instead of under an `if`",
                             {{"line", load.line}}});
      break;
    }
    case PipelineBlocker::Other:
      f.cause = "The load reaches a dot operand and is wide enough, but AssignLatencies still did not pick it: its "
                "users need incompatible shared encodings, its local_alloc copies are narrower than 4 bytes, or the "
                "wgmma operand layout cannot be pipelined (MMALoadType::DoNotPipeline).";
      f.confidence = 0.35;
      break;
    default:
      return;
  }
  sink.report(std::move(f));
}

void LoopNotPipelinedRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.program || !ctx.program->passes || !ctx.task) return;
  const PassDump& dump = *ctx.program->passes;
  const MlirModule* final_ttgir = ctx.program->ttgir ? &*ctx.program->ttgir : nullptr;
  PipeliningAnalysis a = analyze_pipelining(dump, final_ttgir, num_stages(ctx), ctx.task->path);
  if (!a.pre) return;
  Snapshots snaps;
  snaps.pre = snapshot_before(dump, a.assign_step);
  snaps.sched = a.pipeline_step >= 0 ? snapshot_before(dump, a.pipeline_step) : snapshot_after(dump, a.schedule_step);
  std::set<int> reported;
  for (const auto& loop : a.loops) {
    if (loop.blocker != PipelineBlocker::None) {
      if (loop.line > 0 && reported.insert(loop.line).second) report_loop(ctx, a, loop, snaps, sink);
      continue;
    }
    for (const auto& load : loop.loads)
      if (load.blocker != PipelineBlocker::None && load.line > 0 && reported.insert(load.line).second)
        report_load(ctx, a, loop, load, snaps, sink);
  }
}

}  // namespace

std::unique_ptr<Rule> make_loop_not_pipelined_rule() { return std::make_unique<LoopNotPipelinedRule>(); }

}  // namespace tdx
