// l3-layout-conversion-cause: a ttg.convert_layout that survives inside a loop of the final
// TTGIR, the pass that introduced it (per-pass dump), the TritonGPURemoveLayoutConversions runs
// that left it, and the anchors on both sides that force two layouts (a load kept coalesced,
// a dot result, a reduction, a tl.trans, a store).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_snapshots.h"
#include "tritondx/ladder/l3_compiler/l3_evidence.h"
#include "tritondx/ladder/l3_compiler/rules.h"

namespace tdx {
namespace {

using namespace l3;

bool is_elementwise(const MlirOp& op) {
  std::string_view n = op.name;
  if (n.starts_with("arith.") && n != "arith.constant") return true;
  if (n.starts_with("math.")) return true;
  return n == "tt.fp_to_fp" || n == "tt.bitcast" || n == "tt.clampf" || n == "tt.precise_sqrt" ||
         n == "tt.precise_divf" || n == "tt.mulhiui" || n == "tt.extern_elementwise";
}

// What fixes a layout: the first non-elementwise op on the def chain of `value`.
struct Anchor {
  const MlirOp* op = nullptr;
  std::string what;  // "the global load", "the dot result", ...
};

Anchor producer_anchor(const MlirModule& m, const std::string& value, int loop) {
  const MlirOp* def = m.defining_op(value);
  for (int guard = 0; def && guard < 12; ++guard) {
    if (!is_elementwise(*def)) break;
    // follow the first tensor operand defined by an op (constants and splats do not fix layouts)
    const MlirOp* next = nullptr;
    for (const auto& o : def->operands) {
      const MlirOp* d = m.defining_op(o);
      if (!d || d->name == "arith.constant" || d->name == "tt.splat") continue;
      next = d;
      break;
    }
    if (!next) break;
    def = next;
  }
  Anchor a;
  a.op = def;
  if (!def) {
    a.what = "a loop-carried value";
    return a;
  }
  std::string_view n = def->name;
  if (n == "tt.load" || n == "tt.descriptor_load" || n == "ttg.local_load")
    a.what = "a global load, which keeps the coalesced layout of its addresses";
  else if (n == "tt.dot" || n == "ttng.warp_group_dot" || n == "ttng.warp_group_dot_wait")
    a.what = "a dot result in the MMA layout";
  else if (n == "tt.reduce")
    a.what = "a reduction result (a slice of the reduced layout)";
  else if (n == "tt.trans" || n == "tt.reshape" || n == "tt.join" || n == "tt.split" || n == "tt.cat")
    a.what = fmt::format("a `{}`, which permutes the layout of its operand", n);
  else if (n == "tt.expand_dims" || n == "tt.broadcast")
    a.what = fmt::format("a `{}` of a 1-D value", n);
  else
    a.what = fmt::format("`{}`", n);
  (void)loop;
  return a;
}

// The op the converted value is made for: its user, or, for a binary elementwise user, the
// anchor of the other operand (which fixes the layout the value had to match).
Anchor consumer_anchor(const MlirModule& m, const ValueUses& uses, const MlirOp& cvt, int loop) {
  Anchor a;
  if (cvt.results.empty()) return a;
  for (int u : uses.users(cvt.results[0])) {
    const MlirOp& user = m.ops[static_cast<size_t>(u)];
    std::string_view n = user.name;
    if (n == "tt.store" || n == "tt.atomic_rmw" || n == "tt.atomic_cas") {
      a = {&user, "a store, which keeps the coalesced layout of its addresses"};
    } else if (n == "tt.dot" || n == "ttng.warp_group_dot") {
      a = {&user, "a dot operand"};
    } else if (n == "tt.reduce") {
      a = {&user, "a reduction"};
    } else if (n == "scf.yield") {
      a = {&user, "the loop-carried value (iter_arg), whose layout is fixed for all iterations"};
    } else if (is_elementwise(user) && user.operands.size() >= 2) {
      for (const auto& o : user.operands) {
        if (o == cvt.results[0]) continue;
        Anchor other = producer_anchor(m, o, loop);
        if (other.op && other.op->name != "arith.constant") {
          other.what = "the other operand of `" + user.name + "`: " + other.what;
          return other;
        }
      }
      a = {&user, fmt::format("`{}`", user.name)};
    } else {
      a = {&user, fmt::format("`{}`", user.name)};
    }
    if (a.op) return a;
  }
  return a;
}

// In-loop converts per source line in one parsed snapshot.
std::map<int, int> converts_in_loops(const MlirModule& m, const std::string& source_file) {
  std::map<int, int> out;
  for (const auto& op : m.ops)
    if (op.name == "ttg.convert_layout" && enclosing_for(m, op.index) >= 0)
      if (int line = source_line(op, source_file); line > 0) ++out[line];
  return out;
}

class LayoutConversionCauseRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-layout-conversion-cause"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "A `ttg.convert_layout` survives inside a loop of the final TTGIR and goes through shared memory "
           "(st.shared + bar.sync + ld.shared every iteration in the PTX of its line). The rule replays the "
           "per-pass dump to find the pass that introduced the conversion (ConvertTritonToTritonGPU, "
           "TritonGPUCoalesce, TritonGPUAccelerateMatmul, ...) and the TritonGPURemoveLayoutConversions runs "
           "that kept it, and names the anchors on both sides: the op that fixes the source layout (a global "
           "load kept coalesced, a dot result, a reduction, a `tl.trans`) and the one that needs the other "
           "layout (a store, a dot operand, the other operand of an elementwise op, the loop-carried value).";
  }
  RuleNeeds needs() const override { return {.program = true, .pass_dumps = true}; }
  nlohmann::json options() const override { return {{"require_shared_memory", require_smem_}}; }
  void configure(const nlohmann::json& o) override { require_smem_ = o.value("require_shared_memory", require_smem_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool require_smem_ = true;  // report only converts whose line has st.shared in the PTX
};

void LayoutConversionCauseRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.program || !ctx.program->ttgir || !ctx.program->passes || !ctx.task) return;
  const MlirModule& m = *ctx.program->ttgir;
  const std::string& file = ctx.task->path;
  // The final in-loop converts, one per line.
  std::map<int, const MlirOp*> targets;
  for (const auto& op : m.ops)
    if (op.name == "ttg.convert_layout" && enclosing_for(m, op.index) >= 0)
      if (int line = source_line(op, file); line > 0 && !targets.count(line)) targets[line] = &op;
  if (targets.empty()) return;

  // Replay the TTGIR pipeline: in-loop converts per line after each step.
  const PassDump& dump = *ctx.program->passes;
  int first = find_step(dump, "ConvertTritonToTritonGPU");
  if (first < 0) first = 0;
  MlirParseOptions fast;
  fast.types = false;
  struct StepCounts {
    int step;
    std::map<int, int> before, after;
  };
  std::vector<StepCounts> steps;
  std::map<int, std::map<int, int>> parsed;  // snapshot index -> counts
  auto counts = [&](int snapshot) -> const std::map<int, int>* {
    if (snapshot < 0) return nullptr;
    if (auto it = parsed.find(snapshot); it != parsed.end()) return &it->second;
    auto mod = parse_snapshot(dump.snapshots[static_cast<size_t>(snapshot)], fast);
    if (!mod) return nullptr;
    return &(parsed[snapshot] = converts_in_loops(*mod, file));
  };
  for (int s = first; s < static_cast<int>(dump.steps.size()); ++s) {
    const PassStep& st = dump.steps[static_cast<size_t>(s)];
    if (st.before < 0 || !is_tensor_ir_snapshot(dump.snapshots[static_cast<size_t>(st.before)])) break;
    if (st.after < 0 || !is_tensor_ir_snapshot(dump.snapshots[static_cast<size_t>(st.after)])) break;
    if (!st.changed) continue;
    const auto* b = counts(st.before);
    const auto* a = counts(st.after);
    if (!b || !a) continue;
    steps.push_back({s, *b, *a});
  }

  std::map<int, std::vector<const PtxInstruction*>> smem;  // line -> st.shared of that line
  bool have_ptx = ctx.program->ptx.has_value();
  if (have_ptx)
    for (const auto& i : ctx.program->ptx->instructions)
      if (i.opcode == "st" && i.state_space == "shared" && in_task(ctx, i.loc)) smem[i.loc.line].push_back(&i);

  ValueUses uses(m);
  for (const auto& [line, cvt] : targets) {
    if (require_smem_ && have_ptx && !smem.count(line)) continue;  // register-only or shuffle conversion
    // The pass that introduced it: the last step that took the line from 0 to > 0.
    int intro = -1;
    std::vector<int> kept_by;  // RemoveLayoutConversions steps that ran after and left it
    for (const auto& sc : steps) {
      auto cb = sc.before.count(line) ? sc.before.at(line) : 0;
      auto ca = sc.after.count(line) ? sc.after.at(line) : 0;
      if (cb == 0 && ca > 0) {
        intro = sc.step;
        kept_by.clear();
      }
      if (intro >= 0 && cb > 0 && ca > 0 && dump.steps[static_cast<size_t>(sc.step)].pass_name == "TritonGPURemoveLayoutConversions")
        kept_by.push_back(sc.step);
    }
    // RemoveLayoutConversions runs that did not change the IR at all also kept it.
    if (intro >= 0)
      for (int s : find_steps(dump, "TritonGPURemoveLayoutConversions"))
        if (s > intro && !dump.steps[static_cast<size_t>(s)].changed) kept_by.push_back(s);
    std::sort(kept_by.begin(), kept_by.end());

    int loop = enclosing_for(m, cvt->index);
    Anchor src = producer_anchor(m, cvt->operands.empty() ? std::string() : cvt->operands[0], loop);
    Anchor dst = consumer_anchor(m, uses, *cvt, loop);
    std::string from = cvt->operand_types.empty() ? std::string() : cvt->operand_types[0].encoding;
    std::string to = cvt->result_types.empty() ? std::string() : cvt->result_types[0].encoding;

    Finding f;
    f.loc = SourceLoc{file, line, 0};
    f.symptom = fmt::format("a layout conversion ({} -> {}) at line {} runs inside the loop of line {}{}", from, to,
                            line, task_line(ctx, m.ops[static_cast<size_t>(loop)]),
                            smem.count(line) ? ": a shared-memory round trip and barrier every iteration" : "");
    f.evidence.push_back(ctx.source_evidence(line, "the value that is converted"));
    f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, *cvt, "final TTGIR: the conversion inside the loop"));
    if (intro >= 0) {
      const PassStep& st = dump.steps[static_cast<size_t>(intro)];
      if (auto mod = parse_snapshot(dump.snapshots[static_cast<size_t>(st.after)]))
        for (const auto& op : mod->ops)
          if (op.name == "ttg.convert_layout" && source_line(op, file) == line && enclosing_for(*mod, op.index) >= 0) {
            f.evidence.push_back(snapshot_evidence(dump.snapshots[static_cast<size_t>(st.after)], op,
                                                   "IR after " + pass_label(st) + ": the conversion first appears"));
            break;
          }
    }
    if (!kept_by.empty()) {
      const PassStep& st = dump.steps[static_cast<size_t>(kept_by.back())];
      if (auto mod = parse_snapshot(dump.snapshots[static_cast<size_t>(st.after)]))
        for (const auto& op : mod->ops)
          if (op.name == "ttg.convert_layout" && source_line(op, file) == line && enclosing_for(*mod, op.index) >= 0) {
            f.evidence.push_back(snapshot_evidence(
                dump.snapshots[static_cast<size_t>(st.after)], op,
                fmt::format("IR after {}: still there after {} run(s) of RemoveLayoutConversions", pass_label(st),
                            kept_by.size())));
            break;
          }
    }
    if (auto it = smem.find(line); it != smem.end()) {
      const PtxInstruction* i = it->second.front();
      EvidenceLink e;
      e.stage = Stage::Ptx;
      e.loc = i->loc;
      e.ir_line = i->line;
      e.quote = i->text.substr(std::min(i->text.find_first_not_of(" \t"), i->text.size()));
      e.note = fmt::format("{} st.shared instruction(s) at this line: the conversion goes through shared memory",
                           it->second.size());
      f.evidence.push_back(std::move(e));
    }
    if (src.op) f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, *src.op, "source anchor: " + src.what));
    if (dst.op) f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, *dst.op, "destination anchor: " + dst.what));

    std::string intro_text = intro >= 0 ? fmt::format("{} introduced it", dump.steps[static_cast<size_t>(intro)].pass_name)
                                        : std::string("it comes from the layout assignment");
    f.cause = fmt::format(
        "{}; TritonGPURemoveLayoutConversions ran {} time(s) afterwards and kept it because both sides are anchored: "
        "the value comes from {}{} and is needed as {}{}. Anchors (loads, stores, dots, reductions) keep their "
        "layouts, and rematerializing the chain between them is refused when it holds a load, a dot or a loop "
        "argument.",
        intro_text, kept_by.size(), src.what.empty() ? "an op in another layout" : src.what,
        src.op && task_line(ctx, *src.op) ? fmt::format(" (line {})", task_line(ctx, *src.op)) : "",
        dst.what.empty() ? "another layout" : dst.what,
        dst.op && task_line(ctx, *dst.op) ? fmt::format(" (line {})", task_line(ctx, *dst.op)) : "");
    f.confidence = smem.count(line) ? 0.85 : 0.55;
    f.proposals.push_back({kAdvice,
                           "compute in the layout the anchor produces: avoid mixing a value with a transposed or "
                           "differently laid out one inside the loop (e.g. load the transposed operand with swapped "
                           "strides instead of tl.trans), or move the layout change out of the loop",
                           {{"line", line},
                            {"source_line", src.op ? task_line(ctx, *src.op) : 0},
                            {"destination_line", dst.op ? task_line(ctx, *dst.op) : 0}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_layout_conversion_cause_rule() { return std::make_unique<LayoutConversionCauseRule>(); }

}  // namespace tdx
