// l2-uncoalesced-access: a warp's global access touches far more sectors than the bytes it uses.
#include <algorithm>

#include "tritondx/ladder/l2_attribution/l2_rule.h"
#include "tritondx/ladder/l2_attribution/strides.h"
#include "tritondx/source/retiling.h"

namespace tdx {
namespace {

using namespace l2;

std::string kind_of(const MlirOp& op) {
  if (op.name == "tt.load") return "load";
  if (op.name == "tt.store") return "store";
  if (op.name == "ttg.async_copy_global_to_local") return "async-copy";
  if (op.name == "tt.atomic_rmw" || op.name == "tt.atomic_cas") return "atomic";
  return {};
}

InstructionClass ptx_class(const std::string& kind) {
  if (kind == "store") return InstructionClass::GlobalStore;
  if (kind == "async-copy") return InstructionClass::AsyncCopy;
  if (kind == "atomic") return InstructionClass::Atomic;
  return InstructionClass::GlobalLoad;
}

std::string format_strides(const Strides& s) {
  std::string out = "[";
  for (size_t d = 0; d < s.per_dim.size(); ++d)
    out += (d ? ", " : "") + (s.known(d) ? std::to_string(s.per_dim[d]) : std::string("?"));
  return out + "]";
}

class UncoalescedAccessRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-uncoalesced-access"; }
  std::string_view description() const override {
    return "A global load or store whose warp-wide accesses are scattered: the #blocked layout walks its "
           "lanes along a dimension that is strided in memory, so one warp instruction touches many 32-byte "
           "sectors for few useful bytes. The rule evaluates the pointer tensor's element stride per dimension "
           "from the TTGIR index arithmetic and the launch's argument values (e.g. `rows * stride_row` with "
           "stride_row = 1024), places the 32 lanes of a warp with the layout (sizePerThread, threadsPerWarp, "
           "order) and counts the sectors they touch. The cause says which dimension is contiguous in memory "
           "(the one with stride 1, also shown by the launch's tensor strides) and whether the layout's fastest "
           "dimension (order[0]) misses it or the tile does not span it at all.";
  }
  nlohmann::json options() const override { return {{"max_efficiency", max_efficiency_}}; }
  void configure(const nlohmann::json& o) override { max_efficiency_ = o.value("max_efficiency", max_efficiency_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double max_efficiency_ = 0.5;  // report accesses using at most this fraction of the sector bytes they touch
};

void UncoalescedAccessRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  StrideAnalysis strides(ir);
  std::vector<int> reported;
  for (const auto& op : ir.ttgir().ops) {
    std::string kind = kind_of(op);
    if (kind.empty() || !op.loc.known() || op.operands.empty() || op.operand_types.empty()) continue;
    const MlirType& ptr = op.operand_types[0];
    if (!ptr.is_tensor || !ptr.is_pointer) continue;
    const int line = op.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    const Layout* layout = ir.layout(ptr);
    if (!layout || layout->kind != LayoutKind::Blocked) continue;
    const int elem_bytes = std::max(scalar_bits(ptr.pointee) / 8, 1);
    Strides s = strides.of(op.operands[0]);
    if (s.per_dim.size() != ptr.shape.size() || !s.all_known() || s.uniform()) continue;

    auto instrs = ir.ptx_at(line, ptx_class(kind));
    if (instrs.empty()) continue;
    int access_bits = 0;
    for (const auto* i : instrs) access_bits = std::max(access_bits, i->access_bits());
    SectorUse use = warp_sectors(*layout, ptr.shape, s, elem_bytes);
    if (use.sectors == 0 || use.efficiency() > max_efficiency_) continue;
    reported.push_back(line);

    const size_t rank = ptr.shape.size();
    const size_t fast = layout->order.empty() ? rank - 1 : static_cast<size_t>(layout->order[0]);
    int contiguous = -1;
    for (size_t d = 0; d < rank; ++d)
      if ((s.per_dim[d] == 1 || s.per_dim[d] == -1) && ptr.shape[d] > 1) contiguous = static_cast<int>(d);
    std::string root = strides.root_pointer(op.operands[0]);

    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("a warp's {} touches {} sectors (32 B) for {} useful bytes: {:.0f}% of the fetched "
                            "bytes are used",
                            kind, use.sectors, use.useful_bytes, use.efficiency() * 100);
    f.evidence.push_back(ir.source(line, fmt::format("the {}", kind)));
    f.evidence.push_back(ir.op(op, fmt::format("element strides per dimension {} (from the index arithmetic and the "
                                               "launch's values)",
                                               format_strides(s))));
    f.evidence.push_back(ir.layout_definition(
        *layout, op,
        fmt::format("lanes walk dimension {} first (order[0]); threadsPerWarp = {}", fast,
                    format_dims(layout->threads_per_warp))));
    if (!root.empty() && ctx.launch) {
      std::string name = root.substr(1);
      auto it = ctx.launch->args.find(name);
      if (it != ctx.launch->args.end() && it->contains("stride")) {
        EvidenceLink e = ir.source(line, "");
        e.stage = Stage::Task;
        e.quote = fmt::format("{}: shape {}, strides {} (captured launch)", name, it->value("shape", nlohmann::json()).dump(),
                              (*it)["stride"].dump());
        e.note = "the tensor behind the pointer";
        f.evidence.push_back(std::move(e));
      }
    }
    f.evidence.push_back(ir.ptx(*instrs.front(), fmt::format("{} instruction(s) of {} bits on this line",
                                                             instrs.size(), access_bits)));
    auto sass = ir.sass_at(line, kind == "store" ? InstructionClass::GlobalStore : kind == "async-copy"
                                                                                     ? InstructionClass::AsyncCopy
                                                                                     : InstructionClass::GlobalLoad);
    if (!sass.empty())
      f.evidence.push_back(ir.sass(*sass.front(), fmt::format("{} {} on this line in SASS", sass.size(), sass.front()->opcode)));

    const int64_t fast_stride_bytes = s.per_dim[fast] * elem_bytes;
    if (contiguous >= 0 && static_cast<size_t>(contiguous) != fast) {
      f.cause = fmt::format("memory is contiguous along dimension {} (stride 1), but the layout's fastest dimension "
                            "is {} (stride {} bytes): Coalesce orders dimensions by the contiguity the axis info can "
                            "prove, and it proved none along dimension {} (a stride multiplied at run time, or not "
                            "specialized to 1)",
                            contiguous, fast, fast_stride_bytes, contiguous);
    } else if (contiguous < 0) {
      f.cause = fmt::format("the tile does not span the tensor's contiguous dimension: consecutive lanes along "
                            "dimension {} are {} bytes apart, so each lane hits its own sector",
                            fast, fast_stride_bytes);
    } else {
      f.cause = fmt::format("the tile is narrow along the contiguous dimension {} ({} elements), so a warp spreads "
                            "over {} rows of another dimension",
                            contiguous, ptr.shape[static_cast<size_t>(contiguous)],
                            layout->threads_per_warp.size() == rank ? 32 / std::max<int64_t>(layout->threads_per_warp[fast], 1) : 0);
    }
    f.confidence = 0.75;
    f.proposals.push_back(l0::retiling_proposal(
        ctx.function, "reorder-tile",
        "make the tile's fastest dimension the tensor's contiguous one (tile along the contiguous dimension and loop "
        "or launch programs over the strided one), or transpose the data once",
        {{"line", line}, {"contiguous_dim", contiguous}, {"layout_fastest_dim", fast}}));
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_uncoalesced_access_rule() { return std::make_unique<UncoalescedAccessRule>(); }

}  // namespace tdx
