// l2-dot-operands-without-tma: a wgmma K-loop whose A/B tiles reach shared memory through
// per-thread cp.async (pointer tensors) instead of Hopper's TMA (tensor descriptors).
#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

class DotOperandsWithoutTmaRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-dot-operands-without-tma"; }
  std::string_view description() const override {
    return "A loop with a Hopper wgmma (`ttng.warp_group_dot`) stages its operand tiles with "
           "`ttg.async_copy_global_to_local` (per-thread cp.async from a tensor of pointers) and the kernel "
           "has no TMA copy (`ttng.async_tma_copy_global_to_local`). Triton emits TMA only for tensor-"
           "descriptor loads (`tl.make_tensor_descriptor` / `desc.load`): a `tl.load` of a pointer tensor "
           "is pipelined with cp.async, every thread computing and predicating its own addresses, however "
           "regular the tile. With descriptors one thread issues each tile copy and the copy engine "
           "computes the addresses and swizzles into shared memory; a persistent loop over the tiles then "
           "lets the pipeliner overlap one tile's epilogue with the next tile's loads. Reported once, on "
           "the dot's line.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void DotOperandsWithoutTmaRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  const auto& m = ir.ttgir();
  for (const auto& op : m.ops)
    if (op.name == "ttng.async_tma_copy_global_to_local" || op.name == "tt.descriptor_load") return;
  for (const auto& dot : m.ops) {
    if (dot.name != "ttng.warp_group_dot" || !dot.loc.known()) continue;
    const int loop = ir.enclosing_loop(dot);
    if (loop < 0) continue;
    std::vector<const MlirOp*> copies;
    for (const auto& op : m.ops)
      if (op.name == "ttg.async_copy_global_to_local" && ir.enclosing_loop(op) == loop) copies.push_back(&op);
    if (copies.empty()) continue;

    Finding f = ir.finding_at(dot.loc.line);
    f.symptom = fmt::format("the wgmma's operand tiles are copied to shared memory by {} per-thread cp.async op(s) "
                            "per iteration, with no TMA",
                            copies.size());
    f.evidence.push_back(ir.source(dot.loc.line, "the dot"));
    f.evidence.push_back(ir.op(dot, "Hopper wgmma: its operands are read from shared memory"));
    for (const MlirOp* c : copies)
      f.evidence.push_back(ir.op(*c, "cp.async of a pointer tensor: every thread computes and predicates its addresses"));
    f.cause =
        "Triton lowers a tl.load of a pointer tensor in a pipelined loop to ttg.async_copy_global_to_local "
        "(cp.async); TMA copies (ttng.async_tma_copy_global_to_local) come only from tensor-descriptor loads, "
        "which the source does not use, so the address arithmetic and masks run on every thread and each "
        "program also pays the pipeline's fill and drain for its one tile";
    f.confidence = 0.6;
    f.proposals.push_back({"tma-persistent",
                           "load the dot operands through tensor descriptors (TMA) and loop persistently over the "
                           "tiles, one program per SM, when the operands are 16-byte aligned",
                           {{"line", dot.loc.line}}});
    sink.report(std::move(f));
    return;
  }
}

}  // namespace

std::unique_ptr<Rule> make_dot_operands_without_tma_rule() { return std::make_unique<DotOperandsWithoutTmaRule>(); }

}  // namespace tdx
