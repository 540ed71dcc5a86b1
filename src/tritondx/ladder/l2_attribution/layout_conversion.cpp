// l2-layout-conversion: a ttg.convert_layout through shared memory inside a loop.
#include <algorithm>

#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

std::string describe(const IrView& ir, const MlirType& t) {
  return describe_layout(ir.ttgir(), t.encoding);
}

int64_t tensor_bytes(const MlirType& t) {
  int bits = t.is_pointer ? scalar_bits(t.pointee) : scalar_bits(t.element);
  return t.num_elements() * std::max(bits, 8) / 8;
}

class LayoutConversionRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-layout-conversion"; }
  std::string_view description() const override {
    return "A `ttg.convert_layout` survives in the final TTGIR inside an `scf.for` and is lowered through "
           "shared memory: every iteration each thread stores its part of the tensor (`st.shared`), the CTA "
           "synchronizes (`bar.sync`), and reads it back in the other distribution (`ld.shared`/`ldmatrix`). "
           "The finding quotes the conversion with both layouts, the shared-memory instructions and barriers "
           "of that line in PTX and SASS, the bytes moved through shared memory per iteration and per program, "
           "and explains which anchor (a load's coalesced layout, the dot's #mma layout, a store) forced it. "
           "Conversions outside loops (e.g. #mma to #blocked before the epilogue store) run once per program "
           "and are expected: they are not reported unless configured.";
  }
  nlohmann::json options() const override {
    return {{"report_outside_loops", report_outside_loops_}, {"min_bytes", min_bytes_}};
  }
  void configure(const nlohmann::json& o) override {
    report_outside_loops_ = o.value("report_outside_loops", report_outside_loops_);
    min_bytes_ = o.value("min_bytes", min_bytes_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool report_outside_loops_ = false;
  long long min_bytes_ = 0;  // ignore conversions of smaller tensors (bytes per CTA)
};

void LayoutConversionRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  const auto& m = ir.ttgir();
  std::vector<int> reported;
  for (const auto& op : m.ops) {
    if (op.name != "ttg.convert_layout" || !op.loc.known()) continue;
    if (op.operand_types.empty() || op.result_types.empty() || !op.result_types[0].is_tensor) continue;
    const int line = op.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    const int loop = ir.enclosing_loop(op);
    if (loop < 0 && !report_outside_loops_) continue;
    const MlirType& src = op.operand_types[0];
    const MlirType& dst = op.result_types[0];
    const int64_t bytes = tensor_bytes(dst);
    if (bytes < min_bytes_) continue;

    auto stores = ir.ptx_at(line, InstructionClass::SharedStore);
    auto loads = ir.ptx_at(line, InstructionClass::SharedLoad);
    auto barriers = ir.ptx_at(line, InstructionClass::Barrier);
    if (stores.empty() || loads.empty()) continue;  // no shared-memory round trip on this line: register shuffles
    reported.push_back(line);

    std::optional<int64_t> trips;
    int64_t loop_bytes = 0;  // global bytes the loop's own loads/stores move per iteration
    if (loop >= 0) {
      const MlirOp& for_op = m.ops[static_cast<size_t>(loop)];
      trips = ir.trip_count(for_op);
      for (const auto& o : m.ops) {
        if (ir.enclosing_loop(o) != loop) continue;
        if (o.name != "tt.load" && o.name != "tt.store" && o.name != "ttg.async_copy_global_to_local") continue;
        if (!o.operand_types.empty() && o.operand_types[0].is_tensor) loop_bytes += tensor_bytes(o.operand_types[0]);
      }
    }
    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("{:.1f} KB ({}) cross shared memory {} with a CTA barrier", bytes / 1024.0,
                            format_dims(dst.shape), loop >= 0 ? "every loop iteration" : "once per program");
    if (loop >= 0 && loop_bytes > 0)
      f.symptom += fmt::format(" ({:.0f}% of the global bytes the loop loads and stores per iteration)",
                               100.0 * static_cast<double>(bytes) / static_cast<double>(loop_bytes));
    f.evidence.push_back(ir.source(line, "the value whose layout changes"));
    if (loop >= 0) {
      const MlirOp& for_op = m.ops[static_cast<size_t>(loop)];
      f.evidence.push_back(ir.op(for_op, trips ? fmt::format("the enclosing loop: {} iterations for the captured launch", *trips)
                                              : std::string("the enclosing loop")));
    }
    f.evidence.push_back(ir.op(op, fmt::format("from {} to {}", describe(ir, src), describe(ir, dst))));
    if (const Layout* l = ir.layout(src)) f.evidence.push_back(ir.layout_definition(*l, op, "source layout"));
    if (const Layout* l = ir.layout(dst)) f.evidence.push_back(ir.layout_definition(*l, op, "destination layout"));
    f.evidence.push_back(ir.ptx(*stores.front(), fmt::format("{} shared store(s) on this line", stores.size())));
    if (!barriers.empty()) f.evidence.push_back(ir.ptx(*barriers.front(), fmt::format("{} barrier(s)", barriers.size())));
    f.evidence.push_back(ir.ptx(*loads.front(), fmt::format("{} shared load(s) on this line", loads.size())));
    auto sts = ir.sass_at(line, InstructionClass::SharedStore);
    if (!sts.empty()) f.evidence.push_back(ir.sass(*sts.front(), fmt::format("{} STS in SASS", sts.size())));

    const MlirOp* producer = ir.def(op.operands.empty() ? std::string() : op.operands[0]);
    auto consumers = ir.users(op.results.empty() ? std::string() : op.results[0]);
    const Layout* dl = ir.layout(dst);
    const Layout* sl = ir.layout(src);
    std::string consumer = consumers.empty() ? std::string("its user") : "`" + consumers.front()->name + "`";
    if (producer && (producer->name == "tt.load") && dl && dl->kind == LayoutKind::NvidiaMma)
      f.cause = fmt::format("the loaded tile keeps the coalesced #blocked layout of its load (loads are layout anchors), "
                            "but {} needs the #mma accumulator layout; RemoveLayoutConversions cannot rematerialize "
                            "through an expensive load, so the tile is redistributed through shared memory",
                            consumer);
    else if (sl && sl->kind == LayoutKind::NvidiaMma)
      f.cause = fmt::format("the dot produces its result in #mma, while {} is anchored to a #blocked layout; the "
                            "conversion between them goes through shared memory",
                            consumer);
    else if (producer && producer->name == "tt.load")
      f.cause = fmt::format("the load is anchored to its coalesced layout and {} to another one; neither could be "
                            "rematerialized in the other's layout",
                            consumer);
    else
      f.cause = fmt::format("RemoveLayoutConversions could not give the producer (`{}`) and {} one common layout",
                            producer ? producer->name : std::string("?"), consumer);
    if (loop >= 0) {
      f.cause += "; inside the loop it costs a shared-memory round trip and a barrier per iteration";
      if (trips) f.cause += fmt::format(" ({:.1f} MB through shared memory per program)",
                                        2.0 * static_cast<double>(bytes * *trips) / 1e6);
    }
    f.confidence = loop >= 0 ? 0.7 : 0.3;
    f.proposals.push_back({kAdvice,
                           "keep the value in the layout its consumer needs: hoist loop-invariant conversions, do "
                           "elementwise work in the dot's layout, or move transposes/reshapes out of the loop",
                           {{"line", line}, {"from", describe(ir, src)}, {"to", describe(ir, dst)}, {"bytes", bytes}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_layout_conversion_rule() { return std::make_unique<LayoutConversionRule>(); }

}  // namespace tdx
