// l1-ncu-rule: Nsight Compute's own optimization advice (rule results of type OPT) with an
// estimated speedup worth acting on.
#include <algorithm>
#include <map>

#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

class NcuRuleRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-ncu-rule"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "Relays Nsight Compute's own rule results of type OPT (an optimization opportunity) whose estimated "
           "speedup reaches a threshold, one finding per ncu rule (a rule that reports several results, e.g. "
           "for loads and for stores, is merged), at the kernel's def line, with ncu's text. ncu's speedup "
           "(the share of the runtime it expects to save) becomes the gain, bounded by the measured roofline "
           "headroom when the kernel was timed; advice that cannot gain the threshold under that bound is "
           "left out. Rules that a dedicated L1 rule reports per source line (uncoalesced global accesses, "
           "shared-memory bank conflicts, occupancy) are skipped by default, and so is L2 compression advice "
           "(it needs compressible allocations, which a kernel rewrite cannot make).";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .profile = true}; }
  nlohmann::json options() const override {
    return {{"min_speedup_percent", min_speedup_}, {"skip", skip_}};
  }
  void configure(const nlohmann::json& o) override {
    min_speedup_ = o.value("min_speedup_percent", min_speedup_);
    if (o.contains("skip") && o["skip"].is_array()) skip_ = o["skip"].get<std::vector<std::string>>();
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_speedup_ = 10;  // percent of the runtime ncu expects to save
  std::vector<std::string> skip_{"UncoalescedGlobalAccess", "UncoalescedSharedAccess", "SharedMemoryConflicts",
                                 "TheoreticalOccupancy", "AchievedOccupancy", "MemoryL2Compression"};
};

void NcuRuleRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.profile) return;
  const NcuProfile& p = *ctx.profile;
  std::map<std::string, std::vector<const NcuRuleResult*>> by_rule;  // sorted by rule name
  std::vector<std::string> order;
  for (const auto& r : p.rules) {
    if (r.type != "OPT" || r.estimated_speedup < min_speedup_) continue;
    if (std::find(skip_.begin(), skip_.end(), r.rule) != skip_.end()) continue;
    if (!by_rule.count(r.rule)) order.push_back(r.rule);
    by_rule[r.rule].push_back(&r);
  }
  auto headroom = roofline_headroom(ctx);
  int line = kernel_line(ctx);
  for (const auto& name : order) {
    const auto& results = by_rule[name];
    const NcuRuleResult* best = *std::max_element(results.begin(), results.end(), [](const auto* a, const auto* b) {
      return a->estimated_speedup < b->estimated_speedup;
    });
    double gain = gain_from_speedup(best->estimated_speedup);
    bool capped = headroom && *headroom < gain;
    if (capped) gain = *headroom;
    if (gain < gain_from_speedup(min_speedup_)) continue;  // the roofline leaves too little to gain

    Finding f = finding_at(ctx, line);
    std::string first = best->description.substr(0, best->description.find(". ") == std::string::npos
                                                        ? best->description.size()
                                                        : best->description.find(". ") + 1);
    f.symptom = fmt::format("Nsight Compute {} ({}, est. {:.1f}% {}): {}", best->rule, best->section,
                            best->estimated_speedup, best->speedup_type.empty() ? "speedup" : best->speedup_type + " speedup",
                            first);
    f.evidence.push_back(ctx.source_evidence(line, "the kernel"));
    for (const auto* r : results)
      f.evidence.push_back(profile_evidence(
          ctx, line, fmt::format("ncu {} [{}]: {}", r->rule, r->type, r->description),
          fmt::format("estimated speedup {:.1f}% ({})", r->estimated_speedup, r->speedup_type)));
    if (capped)
      f.evidence.push_back(profile_evidence(ctx, line, fmt::format("roofline headroom {:.2f}x", *headroom),
                                            "the measured time is this close to the roofline floor: ncu's estimate "
                                            "is bounded by it"));
    f.cause = best->description;
    f.estimated_gain = gain;
    // ncu's advice is a heuristic over whole-kernel counters: trust a "global" estimate more.
    f.confidence = best->speedup_type == "global" ? 0.5 : 0.4;
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_ncu_rule_rule() { return std::make_unique<NcuRuleRule>(); }

}  // namespace tdx
