// l2-register-limited-occupancy: registers per thread cap the warps an SM can hold.
#include <algorithm>

#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

class RegisterLimitedOccupancyRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-register-limited-occupancy"; }
  std::string_view description() const override {
    return "The registers per thread that ptxas allocated are what limits how many CTAs an SM holds, and the "
           "resulting occupancy is low (below 50% of the SM's 64 warps by default). Memory-bound kernels hide "
           "DRAM latency with many warps in flight, so few resident warps leave bandwidth unused. The finding "
           "shows the register count, the occupancy arithmetic from the target description (register file, "
           "allocation granularity), the largest per-thread tensors of the TTGIR that hold those registers, and "
           "the register count that would fit one more CTA per SM. Kernels built around a tl.dot (tensor cores "
           "or FMA) often run well at low occupancy with large tiles and software pipelining: for them the rule "
           "reports only very low occupancy (below 12.5%), with low confidence.";
  }
  nlohmann::json options() const override {
    return {{"max_fraction", max_fraction_}, {"max_fraction_with_dot", max_fraction_with_dot_}};
  }
  void configure(const nlohmann::json& o) override {
    max_fraction_ = o.value("max_fraction", max_fraction_);
    max_fraction_with_dot_ = o.value("max_fraction_with_dot", max_fraction_with_dot_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double max_fraction_ = 0.5;            // report below this occupancy
  double max_fraction_with_dot_ = 0.125;  // ... or below this one when the kernel has an MMA dot
};

void RegisterLimitedOccupancyRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready() || !ctx.summary || !ctx.target) return;
  const Occupancy& occ = ctx.summary->occupancy;
  if (occ.limiter != "registers") return;
  const bool mma = !ctx.summary->dots.empty();  // any dot, FMA included: compute-heavy
  const double limit = mma ? max_fraction_with_dot_ : max_fraction_;
  if (occ.fraction >= limit) return;
  const auto& res = ir.program().resources;
  const int warps = ir.num_warps();
  const auto& t = *ctx.target;

  // The register count that fits one more CTA per SM, and the occupancy it gives.
  int fit = 0;
  Occupancy better;
  for (int r = res.registers - 1; r >= 16; --r) {
    Occupancy o = compute_occupancy(t, warps, r, res.shared_bytes);
    if (o.blocks_per_sm > occ.blocks_per_sm) {
      fit = r;
      better = o;
      break;
    }
  }

  const int line = ir.kernel_line();
  if (line <= 0) return;
  Finding f = ir.finding_at(line);
  f.symptom = fmt::format("occupancy {:.0f}% ({} of {} warps per SM): {} registers per thread allow {} CTA(s) of {} "
                          "warps per SM",
                          occ.fraction * 100, occ.warps_per_sm, t.max_warps_per_sm, res.registers,
                          occ.blocks_per_sm, warps);
  f.evidence.push_back(ir.source(line, "the kernel"));
  f.evidence.push_back(ir.resources(fmt::format("ptxas: Used {} registers", res.registers), "registers per thread"));
  int per_warp = (res.registers * t.warp_size + t.register_allocation_unit - 1) / t.register_allocation_unit *
                 t.register_allocation_unit;
  f.evidence.push_back(ir.resources(
      fmt::format("{} registers x 32 lanes = {} per warp (allocated in units of {}); {} / ({} x {} warps) = {} "
                  "CTA(s) per SM; warps allow {}, shared memory allows {}",
                  res.registers, per_warp, t.register_allocation_unit, t.registers_per_sm, per_warp, warps,
                  occ.blocks_by_registers, occ.blocks_by_warps,
                  occ.blocks_by_shared > 1000000 ? std::string("any number") : std::to_string(occ.blocks_by_shared)),
      "the occupancy arithmetic (target " + t.name + ")"));

  // The biggest per-thread tensors: what holds the registers.
  std::vector<std::pair<double, const MlirOp*>> big;
  for (const auto& op : ir.ttgir().ops) {
    if (op.result_types.empty() || !op.result_types[0].is_tensor || !op.loc.known()) continue;
    if (op.name != "tt.load" && op.name != "tt.dot" && op.name != "ttng.warp_group_dot" && op.name != "scf.for")
      continue;
    const MlirType& ty = op.result_types[0];
    int bits = ty.is_pointer ? 64 : scalar_bits(ty.element);
    double regs = static_cast<double>(ty.num_elements()) * std::max(bits, 32) / 32.0 / ir.threads_per_cta();
    big.emplace_back(regs, &op);
  }
  std::sort(big.begin(), big.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  // One entry per tensor type: a dot and the loop carrying its accumulator are one tensor.
  for (size_t i = 1; i < big.size();) {
    bool dup = false;
    for (size_t j = 0; j < i; ++j) dup = dup || big[j].second->result_types[0].text == big[i].second->result_types[0].text;
    if (dup) big.erase(big.begin() + static_cast<long>(i));
    else ++i;
  }
  for (size_t i = 0; i < big.size() && i < 2; ++i)
    f.evidence.push_back(ir.op(*big[i].second, fmt::format("{} {} {}: {:.0f} registers per thread",
                                                           big[i].second->name,
                                                           format_dims(big[i].second->result_types[0].shape),
                                                           big[i].second->result_types[0].element, big[i].first)));
  f.cause = fmt::format("the register file ({} per SM) is the binding limit: {} CTA(s) fit by registers, {} by warps",
                        t.registers_per_sm, occ.blocks_by_registers, occ.blocks_by_warps);
  if (!big.empty())
    f.cause += fmt::format("; each thread holds large tensors (the largest: {} {} = {:.0f} registers)",
                           big[0].second->name, format_dims(big[0].second->result_types[0].shape), big[0].first);
  if (fit > 0)
    f.cause += fmt::format("; at {} registers per thread {} CTA(s) would fit ({:.0f}% occupancy)", fit,
                           better.blocks_per_sm, better.fraction * 100);
  f.cause += mma ? "; the kernel is dot-based, where low occupancy with pipelining is often fine"
                 : "; a memory-bound kernel needs many warps in flight to cover DRAM latency";
  f.confidence = mma ? 0.3 : 0.6;
  // More warps for the same block: each thread owns fewer elements, so fewer registers.
  if (warps * 2 <= 32)
    f.proposals.push_back({"set-num-warps",
                           fmt::format("spread the block over {} warps (fewer elements per thread)", warps * 2),
                           {{"num_warps", warps * 2}, {"registers", res.registers}, {"target_registers", fit}}});
  f.proposals.push_back({kAdvice, "shrink the block (fewer elements per thread)",
                         {{"registers", res.registers}, {"target_registers", fit}, {"num_warps", warps}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_register_limited_occupancy_rule() {
  return std::make_unique<RegisterLimitedOccupancyRule>();
}

}  // namespace tdx
