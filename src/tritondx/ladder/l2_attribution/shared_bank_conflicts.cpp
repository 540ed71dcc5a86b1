// l2-shared-bank-conflicts: reads of an unswizzled shared buffer along its strided dimension.
#include <algorithm>
#include <map>

#include "tritondx/ladder/l2_attribution/l2_rule.h"
#include "tritondx/ladder/l2_attribution/strides.h"

namespace tdx {
namespace {

using namespace l2;

// Coordinates (in the shared tensor) that the 32 lanes of warp 0 read in one instruction,
// for the register layouts whose lane placement is known; empty otherwise.
std::vector<std::vector<int64_t>> reader_lanes(const IrView& ir, const MlirType& dst) {
  const Layout* l = ir.layout(dst);
  if (!l || dst.shape.size() != 2) return {};
  if (l->kind == LayoutKind::Blocked) return warp_lane_coordinates(*l, dst.shape);
  if (l->kind != LayoutKind::DotOperand) return {};
  const Layout* parent = ir.ttgir().layout(l->parent);
  if (!parent || parent->kind != LayoutKind::Blocked || parent->threads_per_warp.size() != 2) return {};
  // FMA operands: A[m, k] is read per k with the parent's M lanes, B[k, n] with its N lanes.
  std::vector<int64_t> parent_shape = l->op_idx == 0 ? std::vector<int64_t>{dst.shape[0], 1}
                                                     : std::vector<int64_t>{1, dst.shape[1]};
  auto lanes = warp_lane_coordinates(*parent, parent_shape);
  for (auto& c : lanes) {
    if (l->op_idx == 0) c = {c[0], 0};
    else c = {0, c[1]};
  }
  return lanes;
}

class SharedBankConflictsRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-shared-bank-conflicts"; }
  std::string_view description() const override {
    return "A `ttg.local_load` reads a shared-memory buffer whose layout is not swizzled "
           "(`#ttg.swizzled_shared<{... maxPhase = 1 ...}>`) along the buffer's strided dimension: lanes of a "
           "warp read elements of different rows at the same column, and when a row is a multiple of 128 "
           "bytes those rows start in the same bank, so the 32 banks serve the warp's request in several "
           "passes. The rule places the lanes of the reading layout (a #blocked layout, or the FMA dot operand "
           "of a #blocked parent), computes each lane's 4-byte bank and reports the worst multiplicity, with the "
           "shared layout, the PTX `ld.shared` and SASS `LDS` of the line. It is conservative: swizzled and "
           "nvmma layouts, ldmatrix reads, and conversions (whose shared layout is chosen at lowering and "
           "is not visible in TTGIR) are not analysed.";
  }
  nlohmann::json options() const override { return {{"min_ways", min_ways_}}; }
  void configure(const nlohmann::json& o) override { min_ways_ = o.value("min_ways", min_ways_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  int min_ways_ = 4;  // report conflicts of at least this many ways
};

void SharedBankConflictsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  std::vector<int> reported;
  for (const auto& op : ir.ttgir().ops) {
    if (op.name != "ttg.local_load" || !op.loc.known() || op.operand_types.empty() || op.result_types.empty())
      continue;
    const int line = op.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    const MlirType& mem = op.operand_types[0];
    const MlirType& dst = op.result_types[0];
    const Layout* shared = ir.layout(mem);
    if (!shared || shared->kind != LayoutKind::SwizzledShared || shared->max_phase > 1) continue;
    if (dst.shape.size() != 2 || mem.shape.size() < 2) continue;
    const int elem_bytes = std::max(scalar_bits(dst.element) / 8, 1);
    if (elem_bytes > 4) continue;
    const size_t contig = shared->order.empty() ? 1 : static_cast<size_t>(shared->order[0]);
    const size_t strided = 1 - contig;
    const int64_t row_bytes = dst.shape[contig] * elem_bytes;
    auto lanes = reader_lanes(ir, dst);
    if (lanes.empty()) continue;
    // Worst bank multiplicity: distinct 4-byte words per bank.
    std::map<int64_t, std::vector<int64_t>> banks;
    for (const auto& c : lanes) {
      int64_t word = (c[strided] * row_bytes + c[contig] * elem_bytes) / 4;
      auto& words = banks[word % 32];
      if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
    }
    size_t ways = 0;
    for (const auto& [b, words] : banks) ways = std::max(ways, words.size());
    if (static_cast<int>(ways) < min_ways_) continue;
    auto lds = ir.ptx_at(line, InstructionClass::SharedLoad);
    if (lds.empty()) continue;
    reported.push_back(line);

    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("{}-way shared-memory bank conflicts reading a {} {} buffer along its strided dimension "
                            "({}-byte rows, no swizzle)",
                            ways, format_dims(dst.shape), dst.element, row_bytes);
    f.evidence.push_back(ir.source(line, "the operand staged in shared memory"));
    const MlirOp* alloc = ir.def(op.operands.empty() ? std::string() : op.operands[0]);
    for (int guard = 0; alloc && alloc->name != "ttg.local_alloc" && guard < 6; ++guard)
      alloc = alloc->operands.empty() ? nullptr : ir.def(alloc->operands[0]);
    if (alloc) f.evidence.push_back(ir.op(*alloc, "the shared buffer"));
    f.evidence.push_back(ir.layout_definition(
        *shared, op, fmt::format("maxPhase = 1: no swizzle; dimension {} is contiguous in shared memory", contig)));
    f.evidence.push_back(ir.op(op, fmt::format("read into {}: a warp's lanes differ along dimension {}",
                                               describe_layout(ir.ttgir(), dst.encoding), strided)));
    int scalar = 0;
    for (const auto* i : lds) scalar += i->access_bits() <= 32 ? 1 : 0;
    f.evidence.push_back(ir.ptx(*lds.front(), fmt::format("{} shared loads on this line ({} of 32 bits or less)",
                                                          lds.size(), scalar)));
    auto sass = ir.sass_at(line, InstructionClass::SharedLoad);
    if (!sass.empty()) f.evidence.push_back(ir.sass(*sass.front(), fmt::format("{} LDS in SASS", sass.size())));
    f.cause = fmt::format("the buffer is laid out row-major along dimension {} without swizzling and each row is {} "
                          "bytes, so elements of one column in consecutive rows fall in the same bank; the reading "
                          "layout sends {} lanes to different rows of one column, serializing each request {} times",
                          contig, row_bytes, ways, ways);
    f.confidence = 0.5;
    f.proposals.push_back({"reorder-tile",
                           "store the operand contiguous along the dimension its readers walk (e.g. B as [K, N] with "
                           "N contiguous for the FMA path), or use a dot form with swizzled operands (tf32/fp16 MMA)",
                           {{"line", line}, {"ways", ways}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_shared_bank_conflicts_rule() { return std::make_unique<SharedBankConflictsRule>(); }

}  // namespace tdx
