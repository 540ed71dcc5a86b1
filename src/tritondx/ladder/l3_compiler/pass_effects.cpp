// l3-pass-effects: a pass that was expected to act on a line left it as it was. The per-pass,
// per-line effects come from compute_pass_effects (analysis/pass_effects.h), which the report
// can also show; this rule reports the expectation failures: TritonGPUCoalesce leaving a global
// load or store with one element per thread although each thread owns several.
#include <set>

#include <fmt/format.h>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_effects.h"
#include "tritondx/analysis/pass_snapshots.h"
#include "tritondx/ladder/l3_compiler/l3_evidence.h"
#include "tritondx/ladder/l3_compiler/rules.h"

namespace tdx {
namespace {

using namespace l3;

// The pointer operand's type of a global load or store (a tensor of pointers), if any.
const MlirType* pointer_type(const MlirOp& op) {
  if (op.name != "tt.load" && op.name != "tt.store") return nullptr;
  if (op.operand_types.empty() || !op.operand_types[0].is_tensor || !op.operand_types[0].is_pointer) return nullptr;
  return &op.operand_types[0];
}

class PassEffectsRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-pass-effects"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "A compiler pass that was expected to act on a source line ran and left it as it was. The rule diffs "
           "the per-pass IR dump op by op, grouped by source line (compute_pass_effects: which passes changed "
           "which lines, which were no-ops), and reports a line only when an expected effect is missing: "
           "TritonGPUCoalesce left a global load or store with sizePerThread = 1 along its contiguous dimension "
           "although every thread owns several elements, so the access stays scalar. The cause is read from the "
           "AxisInfo replay over the IR Coalesce saw (contiguity or alignment of the pointer lost at a named op).";
  }
  RuleNeeds needs() const override { return {.program = true, .pass_dumps = true}; }
  nlohmann::json options() const override { return {{"min_elements_per_thread", min_elements_per_thread_}}; }
  void configure(const nlohmann::json& o) override {
    min_elements_per_thread_ = o.value("min_elements_per_thread", min_elements_per_thread_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  int min_elements_per_thread_ = 2;
};

void PassEffectsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.program || !ctx.program->passes || !ctx.task) return;
  const PassDump& dump = *ctx.program->passes;
  int step = find_step(dump, "TritonGPUCoalesce");
  const PassSnapshot* before_snap = snapshot_before(dump, step);
  const PassSnapshot* after_snap = snapshot_after(dump, step);
  if (!before_snap || !after_snap) return;
  auto before = parse_snapshot(*before_snap);
  auto after = parse_snapshot(*after_snap);
  if (!before || !after) return;
  const std::string& file = ctx.task->path;

  std::vector<PassEffect> effects = compute_pass_effects(dump, file);
  const PassEffect& coalesce = effects[static_cast<size_t>(step)];
  std::set<int> touched(coalesce.lines.begin(), coalesce.lines.end());

  std::optional<AxisInfoAnalysis> axis;
  try {
    axis = AxisInfoAnalysis::run(*before);
  } catch (const std::exception&) {
  }
  int threads = static_cast<int>(after->num_warps().value_or(num_warps(ctx)) * after->threads_per_warp().value_or(32));
  std::set<int> reported;
  for (const auto& op : after->ops) {
    const MlirType* ptr = pointer_type(op);
    if (!ptr) continue;
    int line = source_line(op, file);
    if (line == 0 || reported.count(line)) continue;
    const Layout* layout = after->layout(ptr->encoding);
    if (!layout || layout->kind != LayoutKind::Blocked || layout->order.empty()) continue;
    size_t d = static_cast<size_t>(layout->order[0]);
    if (d >= layout->size_per_thread.size() || d >= ptr->shape.size()) continue;
    int bits = element_type_bits(ptr->pointee);
    int64_t per_thread = ptr->num_elements() / std::max(threads, 1);
    if (layout->size_per_thread[d] != 1 || per_thread < min_elements_per_thread_ || ptr->shape[d] < 2 || bits <= 0 ||
        bits >= 128)
      continue;
    // The same op before Coalesce (the default layout ConvertTritonToTritonGPU gave it).
    const MlirOp* prev = nullptr;
    int rank = 0;
    for (const auto& o : after->ops) {
      if (o.index == op.index) break;
      rank += o.name == op.name && o.loc == op.loc;
    }
    for (const auto& o : before->ops)
      if (o.name == op.name && o.loc == op.loc && rank-- == 0) {
        prev = &o;
        break;
      }
    reported.insert(line);
    Finding f;
    f.loc = SourceLoc{file, line, 0};
    std::string kind = op.name == "tt.load" ? "load" : "store";
    f.symptom = fmt::format("TritonGPUCoalesce left the {} at line {} with one element per thread along its contiguous "
                            "dimension although each thread owns {} elements: the access stays scalar ({} bits)",
                            kind, line, per_thread, bits);
    f.evidence.push_back(ctx.source_evidence(line, "the " + kind));
    if (prev) f.evidence.push_back(snapshot_evidence(*before_snap, *prev, "IR before TritonGPUCoalesce"));
    f.evidence.push_back(snapshot_evidence(
        *after_snap, op,
        fmt::format("IR after TritonGPUCoalesce: {} sizePerThread[{}] = 1 ({})", touched.count(line) ? "layout rewritten, but" : "line unchanged,", d,
                    layout->text)));
    std::string why = "AxisInfo gave the pointer a contiguity or alignment of one element along that dimension";
    if (axis && prev)
      for (const auto& m : axis->memory_ops())
        if (m.op_index == prev->index) {
          why = fmt::format("AxisInfo gives the pointer contiguity {} and divisibility {} (elements)", m.contiguity,
                            m.divisibility);
          if (!m.explanation.empty()) why += ": " + m.explanation;
          if (m.culprit_op >= 0 && m.culprit_op < static_cast<int>(before->ops.size()))
            f.evidence.push_back(snapshot_evidence(*before_snap, before->ops[static_cast<size_t>(m.culprit_op)],
                                                   "IR before TritonGPUCoalesce: where the property was lost"));
          break;
        }
    f.cause = fmt::format(
        "TritonGPUCoalesce sets sizePerThread along the most contiguous dimension to min(alignment, contiguity, "
        "128 / element bits), capped by the elements each thread owns; it ran, but {}, so it kept one element per "
        "thread and the lowering emits one {}-bit access per element.",
        why, bits);
    f.confidence = 0.75;
    f.proposals.push_back({kAdvice,
                           "keep the contiguous index a plain tl.arange with unit stride and 16-byte aligned bases, or "
                           "assert true properties with tl.multiple_of / tl.max_contiguous",
                           {{"line", line}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_pass_effects_rule() { return std::make_unique<PassEffectsRule>(); }

}  // namespace tdx
