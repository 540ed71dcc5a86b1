// l1-bound-class: what the GPU was actually limited by (Nsight Compute's speed-of-light
// breakdown) versus what the workload should be limited by (the roofline).
#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

struct Unit {
  std::string_view name;    // "DRAM"
  std::string_view metric;  // ncu's speed-of-light metric
  double percent = 0;
};

class BoundClassRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-bound-class"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "Compares what the workload should be limited by (the roofline: its minimum bytes at HBM "
           "bandwidth versus its FLOPs at the compute peak) with what the GPU was limited by while it ran "
           "(Nsight Compute's speed-of-light throughputs of DRAM, L2, L1/TEX and the SM, in percent of their "
           "peaks). A memory-bound workload should keep DRAM near its peak and a compute-bound one the SM; "
           "the rule reports a kernel that does not: one where no unit is near its peak (latency-bound: "
           "warps wait, nothing is saturated), or one limited by another unit than its roofline's (a "
           "compute-bound matrix product limited by L2 bandwidth re-reading its tiles). Very short kernels "
           "the roofline calls latency-bound (launch overhead dominates) are reported too. The finding is a "
           "classification, so it carries no gain of its own.";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .measurement = true, .profile = true}; }
  nlohmann::json options() const override {
    return {{"saturated_percent", saturated_}, {"near_roofline", near_roofline_}};
  }
  void configure(const nlohmann::json& o) override {
    saturated_ = o.value("saturated_percent", saturated_);
    near_roofline_ = o.value("near_roofline", near_roofline_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double saturated_ = 70;      // a unit at or above this percent of its peak limits the kernel
  double near_roofline_ = 0.85; // silent at or above this fraction of the roofline
  long long max_tile_ = 256;     // grow-tile proposals cap each output tile dimension here
  int max_num_stages_ = 5;       // set-num-stages proposals go no deeper
};

// Kernel-wide stall samples by reason, largest first ("selected" is not a stall).
std::vector<std::pair<std::string, long long>> stall_totals(const NcuProfile& p) {
  std::map<std::string, long long> sum;
  for (const auto& s : p.source)
    for (const auto& [reason, n] : s.stalls)
      if (reason != "selected") sum[reason] += n;
  std::vector<std::pair<std::string, long long>> out(sum.begin(), sum.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

void BoundClassRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.profile || !ctx.roofline || !ctx.measurement || !ctx.measurement->correct) return;
  const NcuProfile& p = *ctx.profile;
  const Roofline& r = *ctx.roofline;
  const std::string sol = "GPU Speed Of Light Throughput";
  std::array<Unit, 4> units{{{"DRAM", "DRAM Throughput"},
                             {"L2", "L2 Cache Throughput"},
                             {"L1/TEX", "L1/TEX Cache Throughput"},
                             {"SM", "Compute (SM) Throughput"}}};
  for (auto& u : units) {
    auto v = p.value(sol, u.metric);
    if (!v) return;  // no speed-of-light section: nothing to classify
    u.percent = *v;
  }
  const Unit* top = &units[0];
  for (const auto& u : units)
    if (u.percent > top->percent) top = &u;
  bool saturated = top->percent >= saturated_;
  // At its ceiling: a memory-bound workload with DRAM saturated (L2 may read higher: every DRAM
  // byte also passes through it), a compute-bound one with the SM saturated, or near the roofline.
  bool as_expected = (r.bound == "memory" && units[0].percent >= saturated_) ||
                     (r.bound == "compute" && units[3].percent >= saturated_) || r.fraction >= near_roofline_;
  if (as_expected) return;

  int line = kernel_line(ctx);
  std::string breakdown = fmt::format("DRAM {:.0f}%, L2 {:.0f}%, L1/TEX {:.0f}%, SM {:.0f}%", units[0].percent,
                                      units[1].percent, units[2].percent, units[3].percent);
  Finding f = finding_at(ctx, line);
  if (r.bound == "latency")
    f.symptom = fmt::format("launch/latency-bound: {:.1f} us per call, {}", r.seconds * 1e6, breakdown);
  else if (!saturated)
    f.symptom = fmt::format("{}-bound workload, but no unit is near its peak: latency-bound ({})", r.bound, breakdown);
  else
    f.symptom = fmt::format("{}-bound workload limited by {} throughput ({:.0f}% of peak) instead of {}", r.bound,
                            top->name, top->percent, r.bound == "compute" ? "the SM" : "DRAM");
  f.evidence.push_back(ctx.source_evidence(line, "the kernel"));
  f.evidence.push_back(profile_evidence(ctx, line, fmt::format("roofline: {}-bound", r.bound), r.why));
  f.evidence.push_back(profile_evidence(ctx, line, "ncu speed of light: " + breakdown,
                                        saturated ? fmt::format("{} is the busiest unit", top->name)
                                                  : fmt::format("no unit reaches {:.0f}% of its peak", saturated_)));
  auto no_eligible = p.value("Scheduler Statistics", "No Eligible");
  auto eligible = p.value("Scheduler Statistics", "Eligible Warps Per Scheduler");
  if (no_eligible && eligible)
    f.evidence.push_back(profile_evidence(
        ctx, line, fmt::format("ncu: no eligible warp in {:.0f}% of cycles, {:.2f} eligible warps per scheduler",
                               *no_eligible, *eligible),
        "how often the schedulers had nothing to issue"));
  auto stalls = stall_totals(p);
  long long total = p.total_samples();
  if (!stalls.empty() && total > 0) {
    std::string top_stalls;
    for (size_t i = 0; i < std::min<size_t>(2, stalls.size()); ++i)
      top_stalls += fmt::format("{}{} {}", i ? ", " : "", stall_name(stalls[i].first),
                                percent(static_cast<double>(stalls[i].second) / static_cast<double>(total)));
    f.evidence.push_back(profile_evidence(ctx, line, "warp stall samples: " + top_stalls,
                                          stall_meaning(stalls[0].first)));
  }

  auto blocks = block_constexprs(ctx);
  if (r.bound == "latency") {
    f.cause = "the kernel is too short for its launch and ramp-up to be hidden: the GPU is mostly idle";
    f.proposals.push_back({kAdvice, "fuse this kernel with its producer or consumer, or batch more work per "
                                           "launch (CUDA graphs hide the launch cost)",
                           {{"seconds", r.seconds}}});
  } else if (!saturated) {
    f.cause = fmt::format(
        "warps spend their time waiting ({}) rather than moving bytes or computing: too little independent "
        "work in flight per SM to cover the latency",
        stalls.empty() ? std::string("stalls") : stall_name(stalls[0].first));
    if (r.bound == "memory" && !blocks.empty()) {
      // grow-block sets one constexpr (and the grid follows); with several, each is a candidate.
      for (const auto& [name, value] : blocks) {
        long long to = std::min<long long>(value * 4, 4096);
        if (to <= value) continue;
        f.proposals.push_back({"grow-block",
                               fmt::format("issue more loads per iteration ({} {} -> {}) so each wait covers more "
                                           "bytes, or remove dependent passes over the same data",
                                           name, value, to),
                               {{"constexpr", name}, {"from", value}, {"block", to}}});
      }
    } else if (r.bound == "compute" && ctx.launch) {
      int stages = ctx.launch->num_stages();
      std::string text = fmt::format("num_stages {} -> {}: more tiles in flight", stages, stages + 1);
      if (stages + 1 <= max_num_stages_)
        f.proposals.push_back({"set-num-stages", text, {{"num_stages", stages + 1}}});
      else
        f.proposals.push_back({kAdvice, text, {{"num_stages", stages + 1}}});
    }
  } else if (r.bound == "compute") {
    f.cause = fmt::format(
        "each loaded tile is reused for too few FLOPs: the kernel re-reads its operands through {} faster than "
        "the tensor cores consume them",
        top->name);
    nlohmann::json params = nlohmann::json::object();
    std::string change;
    // The output tile's constexprs: rows (a name ending in M) and columns (ending in N), not BLOCK_K.
    const std::pair<std::string, long long>* rows = nullptr;
    const std::pair<std::string, long long>* cols = nullptr;
    int n_rows = 0, n_cols = 0;
    for (const auto& b : blocks) {
      const auto& [name, value] = b;
      char last = name.empty() ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(name.back())));
      if (last != 'M' && last != 'N') continue;
      long long to = std::min<long long>(value * 2, max_tile_);
      if (last == 'M') rows = &b, ++n_rows;
      else cols = &b, ++n_cols;
      if (to <= value) continue;
      params[name] = to;
      change += fmt::format("{}{} {} -> {}", change.empty() ? "" : ", ", name, value, to);
    }
    std::string text = fmt::format("larger output tiles ({}): twice the FLOPs per loaded byte", change);
    if (n_rows == 1 && n_cols == 1 && !params.empty()) {
      // grow-tile sets both at the launch call; the finding is on the def line (no access to
      // read the tile from), so the proposal names the constexprs.
      f.proposals.push_back({"grow-tile", text,
                             {{"from", nlohmann::json::array({rows->second, cols->second})},
                              {"tile", nlohmann::json::array({std::min<long long>(rows->second * 2, max_tile_),
                                                              std::min<long long>(cols->second * 2, max_tile_)})},
                              {"constexprs", nlohmann::json::array({rows->first, cols->first})}}});
    } else {
      // Not one rows and one columns constexpr: each constexpr that grows is a grow-block candidate.
      for (const auto& [name, value] : blocks)
        if (params.contains(name))
          f.proposals.push_back({"grow-block", fmt::format("{} {} -> {}: more FLOPs per loaded byte", name, value,
                                                           params[name].get<long long>()),
                                 {{"constexpr", name}, {"from", value}, {"block", params[name]}}});
    }
  } else {
    f.cause = fmt::format("the kernel's traffic saturates {} before DRAM: data is re-read through the cache "
                          "hierarchy more often than the minimum needs",
                          top->name);
    f.proposals.push_back({kAdvice, "read each element once per program (keep it in registers or "
                                                   "shared memory instead of re-loading it)",
                           {{"unit", top->name}, {"percent", top->percent}}});
  }
  f.confidence = 0.6;
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_bound_class_rule() { return std::make_unique<BoundClassRule>(); }

}  // namespace tdx
