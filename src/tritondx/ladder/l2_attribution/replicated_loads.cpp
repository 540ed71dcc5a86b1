// l2-replicated-loads: more threads than the tile has elements, so lanes load the same data.
#include <algorithm>

#include "tritondx/ladder/l2_attribution/l2_rule.h"
#include "tritondx/source/retiling.h"

namespace tdx {
namespace {

using namespace l2;

class ReplicatedLoadsRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-replicated-loads"; }
  std::string_view description() const override {
    return "A global load's #blocked layout covers more elements than the tensor has: sizePerThread x "
           "threadsPerWarp x warpsPerCTA exceeds the shape along some dimension, so several threads hold (and "
           "load) the same elements. Loads are issued by every replica (only stores and async copies are "
           "predicated to unique lanes), so the extra warps add memory instructions and do no useful work; the "
           "tile is too small for num_warps. The finding quotes the layout, the shape, num_warps and the PTX "
           "loads of the line, and proposes the num_warps (or block size) that removes the replication, and for a "
           "1-D tile, more rows per program.";
  }
  nlohmann::json options() const override { return {{"min_replication", min_replication_}}; }
  void configure(const nlohmann::json& o) override { min_replication_ = o.value("min_replication", min_replication_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  int min_replication_ = 2;
};

void ReplicatedLoadsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  std::vector<int> reported;
  for (const auto& op : ir.ttgir().ops) {
    if (op.name != "tt.load" || !op.loc.known() || op.operand_types.empty()) continue;
    const MlirType& ptr = op.operand_types[0];
    if (!ptr.is_tensor || !ptr.is_pointer) continue;
    const int line = op.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    const Layout* l = ir.layout(ptr);
    if (!l || l->kind != LayoutKind::Blocked) continue;
    const size_t rank = ptr.shape.size();
    if (l->size_per_thread.size() != rank || l->threads_per_warp.size() != rank || l->warps_per_cta.size() != rank)
      continue;
    // Replicas per element: along each dimension, the layout's extent over the tensor's.
    int64_t replication = 1;
    int64_t warp_replication = 1;  // replicas that are whole warps
    std::string dims;
    for (size_t d = 0; d < rank; ++d) {
      int64_t lane_extent = l->size_per_thread[d] * l->threads_per_warp[d];
      int64_t extent = lane_extent * l->warps_per_cta[d];
      if (extent > ptr.shape[d]) {
        replication *= extent / ptr.shape[d];
        warp_replication *= std::max<int64_t>(extent / std::max(lane_extent, ptr.shape[d]), 1);
        dims += fmt::format("{}dimension {}: {} x {} x {} = {} > {}", dims.empty() ? "" : "; ", d,
                            l->size_per_thread[d], l->threads_per_warp[d], l->warps_per_cta[d], extent, ptr.shape[d]);
      }
    }
    if (replication < min_replication_) continue;
    auto loads = ir.ptx_at(line, InstructionClass::GlobalLoad);
    if (loads.empty()) continue;
    reported.push_back(line);

    const int warps = ir.num_warps();
    const int useful_warps = static_cast<int>(std::max<int64_t>(warps / std::max<int64_t>(warp_replication, 1), 1));
    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("each element of this {}-element load is loaded by {} threads: {} threads for {} elements",
                            ptr.num_elements(), replication, ir.threads_per_cta(), ptr.num_elements());
    f.evidence.push_back(ir.source(line, "the load"));
    f.evidence.push_back(ir.op(op, fmt::format("tensor {} with {} warps", format_dims(ptr.shape), warps)));
    f.evidence.push_back(ir.layout_definition(*l, op, "the layout's extent exceeds the shape: " + dims));
    f.evidence.push_back(ir.ptx(*loads.front(), fmt::format("{} ld.global on this line, issued by every replica",
                                                            loads.size())));
    auto sass = ir.sass_at(line, InstructionClass::GlobalLoad);
    if (!sass.empty()) f.evidence.push_back(ir.sass(*sass.front(), fmt::format("{} LDG in SASS", sass.size())));
    f.cause = fmt::format("Coalesce and the default layout spread the tile over all {} threads of the CTA, but the "
                          "tile has only {} elements, so the layout wraps and {} threads share each element; the "
                          "duplicate loads hit the same sectors (L1 absorbs them) but cost issue slots, registers "
                          "and warps that compute nothing new",
                          ir.threads_per_cta(), ptr.num_elements(), replication);
    f.confidence = warp_replication > 1 ? 0.6 : 0.4;
    if (warp_replication > 1)
      f.proposals.push_back({"set-num-warps", "launch with fewer warps (or a larger block per program)",
                             {{"num_warps", useful_warps}, {"line", line}}});
    else
      f.proposals.push_back({"grow-block", "give the program a larger tile so every thread owns distinct elements",
                             {{"line", line}, {"elements", ptr.num_elements() * replication}}});
    // A 1-D tile this small is usually one short row per program: give the program several rows.
    if (rank == 1)
      f.proposals.push_back(l0::retiling_proposal(ctx.function, "rows-per-program",
                                                  "give each program several consecutive rows, a [TILE_ROWS, BLOCK] "
                                                  "tile every thread has distinct elements of",
                                                  {{"line", line}, {"elements", ptr.num_elements()}}));
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_replicated_loads_rule() { return std::make_unique<ReplicatedLoadsRule>(); }

}  // namespace tdx
