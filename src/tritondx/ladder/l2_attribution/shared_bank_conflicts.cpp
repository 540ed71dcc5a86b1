// l2-shared-bank-conflicts: reads of an unswizzled shared buffer along its strided dimension.
#include <algorithm>
#include <map>

#include "tritondx/ladder/l2_attribution/l2_rule.h"
#include "tritondx/ladder/l2_attribution/strides.h"
#include "tritondx/source/retiling.h"

namespace tdx {
namespace {

using namespace l2;

// What one warp-wide read instruction does: the coordinate (in the shared tensor) where each
// of the 32 lanes of warp 0 starts, and how many consecutive elements along the buffer's
// contiguous dimension it reads at once (vector accesses up to 16 bytes).
struct WarpRead {
  std::vector<std::vector<int64_t>> lanes;
  int64_t vector = 1;
};

WarpRead reader(const IrView& ir, const MlirType& dst, size_t contig, int elem_bytes) {
  WarpRead r;
  const Layout* l = ir.layout(dst);
  if (!l || dst.shape.size() != 2) return r;
  int64_t run = 1;  // consecutive elements a thread owns along `contig`
  if (l->kind == LayoutKind::Blocked) {
    r.lanes = warp_lane_coordinates(*l, dst.shape);
    if (l->size_per_thread.size() == 2) run = l->size_per_thread[contig];
  } else if (l->kind == LayoutKind::DotOperand) {
    const Layout* parent = ir.ttgir().layout(l->parent);
    if (!parent || parent->kind != LayoutKind::Blocked || parent->threads_per_warp.size() != 2) return r;
    // FMA operands: every thread holds the whole K extent; A[m, k] is spread over the parent's
    // M lanes, B[k, n] over its N lanes.
    const size_t k_dim = l->op_idx == 0 ? 1 : 0;
    const size_t mn_dim = 1 - k_dim;
    std::vector<int64_t> parent_shape = l->op_idx == 0 ? std::vector<int64_t>{dst.shape[0], 1}
                                                       : std::vector<int64_t>{1, dst.shape[1]};
    r.lanes = warp_lane_coordinates(*parent, parent_shape);
    for (auto& c : r.lanes) c[k_dim] = 0;
    run = contig == k_dim ? dst.shape[k_dim] : parent->size_per_thread[mn_dim];
  }
  r.vector = std::clamp<int64_t>(run, 1, std::max(16 / elem_bytes, 1));
  while (r.vector > 1 && (r.vector & (r.vector - 1))) --r.vector;
  return r;
}

// Wavefronts the read needs over the ideal: shared memory serves 128 bytes per wavefront, so
// a warp's request is split in phases of 128 / access-bytes lanes; within a phase, each bank
// serves one distinct 4-byte word per wavefront.
double conflict_ways(const WarpRead& r, size_t contig, int64_t row_bytes, int elem_bytes) {
  const int64_t access = r.vector * elem_bytes;
  const size_t per_phase = static_cast<size_t>(std::max<int64_t>(128 / std::max<int64_t>(access, 4), 1));
  const size_t strided = 1 - contig;
  int phases = 0, wavefronts = 0;
  for (size_t p = 0; p < r.lanes.size(); p += per_phase) {
    std::map<int64_t, std::vector<int64_t>> banks;
    for (size_t i = p; i < std::min(p + per_phase, r.lanes.size()); ++i) {
      const auto& c = r.lanes[i];
      int64_t first = (c[strided] * row_bytes + c[contig] * elem_bytes) / 4;
      for (int64_t w = first; w < first + std::max<int64_t>(access / 4, 1); ++w) {
        auto& words = banks[w % 32];
        if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
      }
    }
    size_t worst = 1;
    for (const auto& [b, words] : banks) worst = std::max(worst, words.size());
    ++phases;
    wavefronts += static_cast<int>(worst);
  }
  return phases > 0 ? static_cast<double>(wavefronts) / phases : 1.0;
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
           "of a #blocked parent) with their vector width, splits the request into 128-byte phases and counts "
           "the wavefronts each phase needs (distinct 4-byte words per bank) against the ideal one, with the "
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
    WarpRead read = reader(ir, dst, contig, elem_bytes);
    if (read.lanes.empty()) continue;
    const double ways_exact = conflict_ways(read, contig, row_bytes, elem_bytes);
    const int ways = static_cast<int>(ways_exact + 0.5);
    if (ways_exact < min_ways_) continue;
    auto lds = ir.ptx_at(line, InstructionClass::SharedLoad);
    if (lds.empty()) continue;
    reported.push_back(line);

    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("{}-way shared-memory bank conflicts reading a {} {} buffer along its strided dimension "
                            "({}-byte rows, no swizzle, {}-byte reads per lane)",
                            ways, format_dims(dst.shape), dst.element, row_bytes, read.vector * elem_bytes);
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
                          "layout sends the lanes of a phase to different rows of the same columns, so each request "
                          "takes {} wavefronts instead of one",
                          contig, row_bytes, ways);
    f.confidence = 0.5;
    f.proposals.push_back(l0::retiling_proposal(
        ctx.function, "reorder-tile",
        "store the operand contiguous along the dimension its readers walk (e.g. B as [K, N] with N contiguous for "
        "the FMA path), or use a dot form with swizzled operands (tf32/fp16 MMA)",
        {{"line", line}, {"ways", ways}}));
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_shared_bank_conflicts_rule() { return std::make_unique<SharedBankConflictsRule>(); }

}  // namespace tdx
