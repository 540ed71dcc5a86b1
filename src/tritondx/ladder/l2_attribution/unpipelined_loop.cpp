// l2-unpipelined-loop: a loop whose global loads are synchronous (no cp.async / TMA staging).
#include <algorithm>
#include <set>

#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

bool is_dot(const MlirOp& op) { return op.name == "tt.dot" || op.name == "ttng.warp_group_dot"; }

bool is_async_load(const MlirOp& op) {
  return op.name == "ttg.async_copy_global_to_local" || op.name == "ttng.async_tma_copy_global_to_local" ||
         op.name == "ttng.async_tma_gather";
}

// Which dot operand (0 = A, 1 = B, 2 = accumulator) a value reaches through its users; -1 if none.
int dot_operand_reached(const IrView& ir, const std::string& value) {
  std::vector<std::string> work{value};
  std::set<std::string> seen;
  int best = -1;
  while (!work.empty() && seen.size() < 64) {
    std::string v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    for (const MlirOp* u : ir.users(v)) {
      if (is_dot(*u)) {
        for (size_t i = 0; i < u->operands.size() && i < 3; ++i) {
          if (IrView::strip_result(u->operands[i]) != IrView::strip_result(v)) continue;
          best = best < 0 ? static_cast<int>(i) : std::min(best, static_cast<int>(i));
        }
        continue;
      }
      if (u->name == "scf.yield" || u->name == "scf.for") continue;
      for (const auto& r : u->results) work.push_back(r);
    }
  }
  return best;
}

class UnpipelinedLoopRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-unpipelined-loop"; }
  std::string_view description() const override {
    return "A loop loads global memory synchronously every iteration: its `tt.load`s stay plain loads in "
           "the final TTGIR (no `ttg.async_copy_global_to_local` or TMA copy, no `loop.stage`), the PTX of "
           "those lines is `ld.global` with no `cp.async`, and SASS shows `LDG`. Each iteration then waits for "
           "DRAM latency before computing. Covers K-loops with a dot whose loads the software pipeliner did not "
           "stage (num_stages <= 1, narrow loads, outer loops, loads that feed only the accumulator or other "
           "ops) and streaming loops without a dot, which Triton pipelines only when written `tl.range(..., "
           "num_stages=N)`. A loop that is pipelined but keeps some synchronous loads is reported with lower "
           "confidence.";
  }
  nlohmann::json options() const override { return {{"report_partial", report_partial_}}; }
  void configure(const nlohmann::json& o) override { report_partial_ = o.value("report_partial", report_partial_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool report_partial_ = true;
};

void UnpipelinedLoopRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  const auto& m = ir.ttgir();
  std::vector<int> reported;
  for (const auto& loop : m.ops) {
    if (loop.name != "scf.for" || !loop.loc.known()) continue;
    std::vector<const MlirOp*> sync_loads;
    int async = 0, dots = 0, staged = 0;
    bool inner_loop = false;
    for (const auto& op : m.ops) {
      if (ir.enclosing_loop(op) != loop.index) continue;
      if (op.name == "scf.for") inner_loop = true;
      if (op.attribute("loop.stage")) ++staged;
      if (is_async_load(op)) ++async;
      if (is_dot(op)) ++dots;
      if (op.name == "tt.load" && !op.operand_types.empty() && op.operand_types[0].is_tensor) sync_loads.push_back(&op);
    }
    if (sync_loads.empty()) continue;
    const bool pipelined = async > 0 || staged > 0;
    if (pipelined && !report_partial_) continue;
    const int line = loop.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;

    // PTX/SASS of the synchronous loads' lines.
    std::vector<const PtxInstruction*> ldg;
    int cp_async = 0;
    std::set<int> load_lines;
    for (const auto* l : sync_loads) {
      if (!l->loc.known() || !load_lines.insert(l->loc.line).second) continue;
      for (const auto* i : ir.ptx_at(l->loc.line)) {
        auto c = classify(*i);
        if (c == InstructionClass::GlobalLoad) ldg.push_back(i);
        if (c == InstructionClass::AsyncCopy || c == InstructionClass::Tma) ++cp_async;
      }
    }
    if (ldg.empty() || cp_async > 0) continue;  // no synchronous global load instruction to show
    reported.push_back(line);
    std::vector<const SassInstruction*> sass;
    for (int l : load_lines)
      for (const auto* i : ir.sass_at(l, InstructionClass::GlobalLoad)) sass.push_back(i);

    const auto trips = ir.trip_count(loop);
    const int stages = loop.int_attribute("tt.num_stages").value_or(ctx.launch ? ctx.launch->num_stages()
                                                                               : ir.program().resources.num_stages);
    Finding f = ir.finding_at(line);
    std::string what = dots > 0 ? "K-loop with a dot" : "streaming loop";
    f.symptom = pipelined ? fmt::format("{} is only partly pipelined: {} of its global loads stay synchronous "
                                        "ld.global every iteration",
                                        what, sync_loads.size())
                          : fmt::format("{} is not pipelined: {} global load(s) wait for DRAM every iteration{}", what,
                                        sync_loads.size(),
                                        trips ? fmt::format(" ({} iterations for the captured launch)", *trips)
                                              : std::string());
    f.evidence.push_back(ir.source(line, "the loop"));
    f.evidence.push_back(ir.op(loop, pipelined ? fmt::format("{} async copies staged in this loop", async)
                                               : "no ttg.async_copy_global_to_local, TMA copy or loop.stage in its body"));
    for (size_t i = 0; i < sync_loads.size() && i < 3; ++i)
      f.evidence.push_back(ir.op(*sync_loads[i], "a synchronous tt.load inside the loop"));
    f.evidence.push_back(ir.ptx(*ldg.front(), fmt::format("{} ld.global on the loads' line(s), no cp.async", ldg.size())));
    if (!sass.empty()) f.evidence.push_back(ir.sass(*sass.front(), fmt::format("{} LDG in SASS", sass.size())));

    // Why the pipeliner left it alone (compiler notes C1-C4).
    int narrow = 0;
    for (const auto* i : ldg)
      if (i->access_bits() > 0 && i->access_bits() < 32) ++narrow;
    if (dots > 0) {
      if (stages <= 1) {
        f.cause = fmt::format("num_stages = {}: the software pipeliner is off for this loop", stages);
      } else if (inner_loop) {
        f.cause = "the loop is not innermost: the pipeliner only stages innermost loops";
      } else if (narrow > 0) {
        f.cause = "the loads are narrower than 4 bytes per access (vec x bits < 32) and cp.async cannot copy them";
      } else {
        int reach = dot_operand_reached(ir, sync_loads.front()->results.empty() ? std::string()
                                                                              : sync_loads.front()->results.front());
        if (reach == 2 || reach < 0)
          f.cause = fmt::format("the pipeliner collects loads by walking back from the dots' A and B operands; this "
                                "load feeds {}, so it is loaded synchronously",
                                reach == 2 ? "only the accumulator" : "no dot operand");
        else
          f.cause = "the pipeliner did not stage the loads feeding the dot (dependency or scheduling failure)";
      }
    } else if (loop.int_attribute("tt.num_stages").value_or(0) <= 1) {
      f.cause = "the loop has no dot, and Triton pipelines loops without a dot only when they carry tt.num_stages "
                "(written `tl.range(lo, hi, step, num_stages=N)`)";
    } else if (inner_loop) {
      f.cause = "the loop is not innermost: the pipeliner only stages innermost loops";
    } else {
      f.cause = "the loop asks for pipelining (tt.num_stages) but its loads were not staged";
    }
    f.cause += "; every iteration waits for its loads' full memory latency";
    f.confidence = pipelined ? 0.45 : (dots > 0 ? 0.8 : 0.65);
    f.proposals.push_back({"pipeline-loop",
                           dots > 0 && stages <= 1 ? "raise num_stages to 3 or 4"
                                                   : "iterate with tl.range(..., num_stages=3) so the loads are "
                                                     "prefetched through cp.async",
                           {{"line", line}, {"num_stages", 3}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_unpipelined_loop_rule() { return std::make_unique<UnpipelinedLoopRule>(); }

}  // namespace tdx
