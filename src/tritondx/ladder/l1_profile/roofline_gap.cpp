// l1-roofline-gap: the measured time is far above the roofline floor (bytes at HBM bandwidth,
// or FLOPs at the compute peak).
#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

class RooflineGapRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-roofline-gap"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "The kernel's measured median time (CUDA events, L2 flushed between calls) is far above its "
           "roofline floor: the task's minimum bytes at the measured HBM bandwidth, or its FLOPs at the "
           "measured peak of the math it uses (fp16/bf16/tf32 tensor cores or fp32), whichever is larger. "
           "The finding states the gap (the fraction of the roofline reached, the achieved bandwidth or "
           "FLOP rate) and bounds the possible gain by 1/fraction; it is the symptom the other L1 findings "
           "(bound class, hot lines, occupancy) and the L2/L3 findings explain. A kernel that is not "
           "correct is not timed and not reported.";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .measurement = true}; }
  nlohmann::json options() const override { return {{"max_fraction", max_fraction_}, {"max_gain", max_gain_}}; }
  void configure(const nlohmann::json& o) override {
    max_fraction_ = o.value("max_fraction", max_fraction_);
    max_gain_ = o.value("max_gain", max_gain_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double max_fraction_ = 0.7;  // report below this fraction of the roofline
  double max_gain_ = 10.0;     // cap of the reported gain
};

void RooflineGapRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.measurement || !ctx.roofline || !ctx.measurement->timing || !ctx.measurement->correct) return;
  const Roofline& r = *ctx.roofline;
  const Timing& t = *ctx.measurement->timing;
  if (r.floor_seconds <= 0 || r.fraction <= 0 || r.fraction >= max_fraction_) return;
  int line = kernel_line(ctx);
  bool compute = r.bound == "compute";
  const auto& m = *ctx.measurement;
  double bytes_min = static_cast<double>(m.min_bytes > 0 ? m.min_bytes : ctx.min_bytes);
  double flops = static_cast<double>(m.flops > 0 ? m.flops : ctx.flops);
  double hbm = 0, peak = 0;
  if (ctx.target) {
    if (auto it = ctx.target->ceilings.find("hbm_bytes_per_second"); it != ctx.target->ceilings.end()) hbm = it->second.value;
    if (auto it = ctx.target->ceilings.find(r.compute_ceiling); it != ctx.target->ceilings.end()) peak = it->second.value;
  }

  Finding f = finding_at(ctx, line);
  std::string floor_text =
      compute ? fmt::format("{:.3f} ms = {:.3g} FLOP at {:.0f} TFLOP/s ({})", r.floor_seconds * 1e3, flops, peak / 1e12,
                            r.compute_ceiling)
              : fmt::format("{:.3f} ms = {} at {} (HBM)", r.floor_seconds * 1e3, bytes(bytes_min), rate(hbm));
  f.symptom = fmt::format("runs at {} of its {} roofline: {:.3f} ms measured, {:.3f} ms floor", percent(r.fraction),
                          compute ? "compute" : "memory", t.median_ms, r.floor_seconds * 1e3);
  f.evidence.push_back(ctx.source_evidence(line, "the kernel"));
  f.evidence.push_back(profile_evidence(
      ctx, line,
      fmt::format("median {:.4f} ms (p10 {:.4f}, p90 {:.4f}) over {} calls", t.median_ms, t.p10_ms, t.p90_ms, t.reps),
      fmt::format("measured on {} with CUDA events, L2 flushed between calls; correct on {} input draws{}", m.device,
                  m.draws,
                  m.test_inputs_checked > 0 ? fmt::format(" and {} test input tuples", m.test_inputs_checked) : "")));
  f.evidence.push_back(profile_evidence(ctx, line, "floor " + floor_text,
                                        fmt::format("the roofline floor ({}-bound: {})", r.bound, r.why)));
  f.evidence.push_back(profile_evidence(
      ctx, line,
      compute ? fmt::format("achieved {:.0f} TFLOP/s = {} of the {} peak", r.achieved_flops / 1e12,
                            percent(r.compute_fraction), r.compute_ceiling)
              : fmt::format("achieved {} = {} of HBM bandwidth", rate(r.achieved_bytes_per_second),
                            percent(r.bandwidth_fraction)),
      "the task's minimum work divided by the measured time"));
  if (ctx.profile) {
    const NcuProfile& p = *ctx.profile;
    auto sol = [&](std::string_view name) { return p.value("GPU Speed Of Light Throughput", name); };
    if (auto d = sol("Duration"))
      f.evidence.push_back(profile_evidence(
          ctx, line,
          fmt::format("ncu: Duration {:.2f} us, DRAM Throughput {:.1f}%, Compute (SM) Throughput {:.1f}%", *d,
                      sol("DRAM Throughput").value_or(0), sol("Compute (SM) Throughput").value_or(0)),
          "Nsight Compute's profile of one launch agrees with the timing"));
    auto read = p.raw_si("dram__bytes_read.sum"), written = p.raw_si("dram__bytes_write.sum");
    if (read && written && bytes_min > 0)
      f.evidence.push_back(profile_evidence(
          ctx, line, fmt::format("ncu: DRAM read {} + written {} = {:.2f}x the minimum {}", bytes(*read), bytes(*written),
                                 (*read + *written) / bytes_min, bytes(bytes_min)),
          (*read + *written) > 1.3 * bytes_min ? "the kernel moves more DRAM bytes than it must"
                                               : "DRAM traffic is at the minimum: the time goes elsewhere "
                                                 "(latency, L2/L1 traffic, instruction issue)"));
  }
  f.cause = fmt::format(
      "the kernel reaches {} of the {} it should be limited by; {:.2f}x is the most any change can gain. "
      "The other L1 findings say where the time goes",
      percent(compute ? r.compute_fraction : r.bandwidth_fraction), compute ? r.compute_ceiling + " peak" : "HBM bandwidth",
      1.0 / r.fraction);
  f.confidence = t.cv > 0 && t.cv < 0.05 ? 0.9 : 0.7;
  f.estimated_gain = std::min(1.0 / r.fraction, max_gain_);
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_roofline_gap_rule() { return std::make_unique<RooflineGapRule>(); }

}  // namespace tdx
