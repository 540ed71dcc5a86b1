// l1-occupancy-limiter: few warps per SM (registers, shared memory, block size) while the
// schedulers often have no warp to issue.
#include <array>
#include <cmath>

#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

struct Limit {
  std::string_view metric;  // "Block Limit Registers"
  std::string_view name;    // "registers"
  double blocks = 0;
};

class OccupancyLimiterRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-occupancy-limiter"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "Low occupancy that costs time: Nsight Compute's theoretical (or achieved) occupancy is below a "
           "threshold and the schedulers often find no eligible warp, so the few resident warps cannot hide "
           "latency. The finding names the resource that limits the blocks per SM (registers per thread, "
           "shared memory per block, warps per block, the 32-blocks-per-SM cap) from ncu's block limits, "
           "says what change would fit one more block (e.g. the register count to reach with maxnreg), and "
           "takes its gain from ncu's occupancy rule when ncu estimates one.";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .profile = true}; }
  nlohmann::json options() const override {
    return {{"max_occupancy_percent", max_occupancy_}, {"min_no_eligible_percent", min_no_eligible_}};
  }
  void configure(const nlohmann::json& o) override {
    max_occupancy_ = o.value("max_occupancy_percent", max_occupancy_);
    min_no_eligible_ = o.value("min_no_eligible_percent", min_no_eligible_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double max_occupancy_ = 60;     // report at or below this occupancy (percent)
  double min_no_eligible_ = 40;   // ... when schedulers had no eligible warp in at least this share of cycles
};

void OccupancyLimiterRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.profile) return;
  const NcuProfile& p = *ctx.profile;
  auto theoretical = p.value("Occupancy", "Theoretical Occupancy");
  auto achieved = p.value("Occupancy", "Achieved Occupancy");
  auto no_eligible = p.value("Scheduler Statistics", "No Eligible");
  if (!theoretical || !achieved || !no_eligible) return;
  if (std::min(*theoretical, *achieved) > max_occupancy_ || *no_eligible < min_no_eligible_) return;

  std::array<Limit, 5> limits{{{"Block Limit Registers", "registers"},
                               {"Block Limit Shared Mem", "shared memory"},
                               {"Block Limit Warps", "warps per block"},
                               {"Block Limit SM", "blocks per SM"},
                               {"Block Limit Barriers", "barriers"}}};
  const Limit* limiter = nullptr;
  const Limit* second = nullptr;
  for (auto& l : limits) {
    auto v = p.value("Occupancy", l.metric);
    if (!v) continue;
    l.blocks = *v;
    if (!limiter || l.blocks < limiter->blocks) {
      second = limiter;
      limiter = &l;
    } else if (!second || l.blocks < second->blocks) {
      second = &l;
    }
  }
  bool theoretical_low = *theoretical <= max_occupancy_;
  int line = kernel_line(ctx);
  double block_threads = p.value("Launch Statistics", "Block Size").value_or(0);
  double regs = p.value("Launch Statistics", "Registers Per Thread").value_or(0);
  double warps = p.value("Occupancy", "Theoretical Active Warps per SM").value_or(0);

  Finding f = finding_at(ctx, line);
  f.evidence.push_back(ctx.source_evidence(line, "the kernel"));
  f.evidence.push_back(profile_evidence(
      ctx, line,
      fmt::format("ncu: theoretical occupancy {:.0f}% ({:.0f} warps per SM), achieved {:.1f}%", *theoretical, warps,
                  *achieved),
      fmt::format("resident warps per SM, of the {} an SM can hold", ctx.target && ctx.target->max_warps_per_sm > 0
                                                                         ? ctx.target->max_warps_per_sm
                                                                         : 64)));
  if (limiter) {
    std::string all;
    for (const auto& l : limits)
      if (l.blocks > 0) all += fmt::format("{}{} {:.0f}", all.empty() ? "" : ", ", l.name, l.blocks);
    f.evidence.push_back(profile_evidence(ctx, line, "ncu block limits per SM: " + all,
                                          fmt::format("{} allows the fewest blocks", limiter->name)));
  }
  f.evidence.push_back(profile_evidence(
      ctx, line,
      fmt::format("ncu: no eligible warp in {:.0f}% of cycles, {:.2f} eligible warps per scheduler", *no_eligible,
                  p.value("Scheduler Statistics", "Eligible Warps Per Scheduler").value_or(0)),
      "the resident warps do not hide the latency"));

  if (theoretical_low && limiter) {
    f.symptom = fmt::format("occupancy {:.0f}% limited by {} ({:.0f} blocks of {:.0f} threads per SM); schedulers "
                            "idle in {:.0f}% of cycles",
                            *theoretical, limiter->name, limiter->blocks, block_threads, *no_eligible);
    std::string then = second && second->blocks <= limiter->blocks + 1
                           ? fmt::format(" (then {} limits at {:.0f})", second->name, second->blocks)
                           : std::string();
    if (limiter->name == "registers" && regs > 0 && block_threads > 0 && ctx.target) {
      double per_sm = ctx.target->registers_per_sm > 0 ? ctx.target->registers_per_sm : 65536;
      int target_regs = static_cast<int>(std::floor(per_sm / ((limiter->blocks + 1) * block_threads) / 8) * 8);
      f.cause = fmt::format("{:.0f} registers per thread x {:.0f} threads fit {:.0f} blocks in the SM's {:.0f} "
                            "registers; {} or fewer would fit one more block{}",
                            regs, block_threads, limiter->blocks, per_sm, target_regs, then);
      if (target_regs >= 24)
        f.proposals.push_back({"set-maxnreg",
                               fmt::format("launch with maxnreg={} (watch for spills), or shrink the per-thread "
                                           "state (smaller tiles per warp, more warps)",
                                           target_regs),
                               {{"maxnreg", target_regs}, {"registers", regs}}});
    } else if (limiter->name == "shared memory") {
      auto dyn = p.metric("Launch Statistics", "Dynamic Shared Memory Per Block");
      int stages = ctx.launch ? ctx.launch->num_stages() : 0;
      f.cause = fmt::format("each block needs {} of shared memory{}, so only {:.0f} fit per SM{}",
                            dyn ? bytes(dyn->si()) : std::string("its shared memory"),
                            stages > 1 ? fmt::format(" ({} pipeline stages)", stages) : std::string(), limiter->blocks,
                            then);
      if (stages > 2)
        f.proposals.push_back({"set-num-stages", fmt::format("num_stages {} -> {}", stages, stages - 1),
                               {{"num_stages", stages - 1}}});
    } else if (limiter->name == "blocks per SM") {
      f.cause = fmt::format("blocks of {:.0f} threads are so small that the 32-blocks-per-SM cap binds first",
                            block_threads);
      auto blocks = block_constexprs(ctx);
      for (const auto& [name, value] : blocks) {
        std::string text = fmt::format("{} {} -> {}", name, value, value * 4);
        // grow-block sets it and the grid follows; with several, each is a candidate of its own.
        f.proposals.push_back({"grow-block", text, {{"constexpr", name}, {"from", value}, {"block", value * 4}}});
      }
    } else {
      f.cause = fmt::format("{} limit the kernel to {:.0f} blocks per SM{}", limiter->name, limiter->blocks, then);
    }
  } else {
    f.symptom = fmt::format("achieved occupancy {:.0f}% of a theoretical {:.0f}%; schedulers idle in {:.0f}% of cycles",
                            *achieved, *theoretical, *no_eligible);
    auto waves = p.value("Launch Statistics", "Waves Per SM");
    f.cause = fmt::format("blocks are not resident as long as they could be: a partial last wave{} or uneven block "
                          "run times leave SMs under-filled",
                          waves ? fmt::format(" ({:.2f} waves per SM)", *waves) : std::string());
  }
  for (const auto* rule : p.rule_results(theoretical_low ? "TheoreticalOccupancy" : "AchievedOccupancy")) {
    if (rule->type != "OPT") continue;
    f.evidence.push_back(profile_evidence(ctx, line, "ncu " + rule->rule + ": " + rule->description.substr(0, 240),
                                          fmt::format("ncu estimates {:.1f}% of the runtime", rule->estimated_speedup)));
    double gain = gain_from_speedup(rule->estimated_speedup);
    if (auto cap = roofline_headroom(ctx)) gain = std::min(gain, *cap);
    if (gain > 1) f.estimated_gain = gain;
  }
  f.confidence = 0.5;
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_occupancy_limiter_rule() { return std::make_unique<OccupancyLimiterRule>(); }

}  // namespace tdx
