// l1-uncoalesced-access: global accesses of a source line that touch more L2 sectors than the
// bytes they use need (ncu's L2 Theoretical Sectors Global Excessive, per instruction).
#include <algorithm>
#include <cmath>
#include <map>

#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

class UncoalescedAccessRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-uncoalesced-access"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "Global loads or stores of a source line whose warps touch more 32-byte L2 sectors than the bytes "
           "they use need: Nsight Compute's per-instruction L2 Theoretical Sectors Global against their "
           "ideal (ncu's UncoalescedGlobalAccess rule, attributed to Python lines through the SASS line "
           "table). The typical Triton cause is a per-thread run of contiguous elements split into scalar "
           "32-bit accesses (LDG.E at +0x0, +0x4, +0x8, +0xc) because the compiler could not prove 16-byte "
           "alignment, so each warp instruction spans 4x the sectors it uses. The gain is ncu's estimate "
           "for the line's share of the excess, bounded by the measured roofline headroom (the L1 cache "
           "often absorbs the extra sectors, so DRAM traffic and time may barely change).";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .profile = true}; }
  nlohmann::json options() const override {
    return {{"min_excess_fraction", min_excess_}, {"min_kernel_share", min_share_}};
  }
  void configure(const nlohmann::json& o) override {
    min_excess_ = o.value("min_excess_fraction", min_excess_);
    min_share_ = o.value("min_kernel_share", min_share_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_excess_ = 0.25;  // excessive / total sectors of the line
  double min_share_ = 0.05;   // the line's excessive sectors / all the kernel's L2 sectors
};

// Per-thread runs: accesses off the same base register at consecutive offsets of their width.
struct Split {
  int accesses = 0;      // instructions in the longest run
  int access_bits = 0;
};

Split split_accesses(const std::vector<const SassInstruction*>& mem) {
  std::map<std::string, std::vector<std::pair<long long, int>>> by_base;  // base register -> (offset, bits)
  for (const auto* i : mem) {
    for (const auto& op : i->operands) {
      size_t lb = op.rfind('[');
      if (lb == std::string::npos || op.find("desc[") == lb) continue;
      std::string inner = op.substr(lb + 1, op.find(']', lb) - lb - 1);  // "R4.64+0x8"
      size_t plus = inner.find('+');
      std::string base = inner.substr(0, plus);
      long long off = plus == std::string::npos ? 0 : std::stoll(inner.substr(plus + 1), nullptr, 16);
      by_base[base].emplace_back(off, i->access_bits());
      break;
    }
  }
  Split best;
  for (auto& [base, offs] : by_base) {
    std::sort(offs.begin(), offs.end());
    int run = 1;
    for (size_t k = 1; k < offs.size(); ++k) {
      run = offs[k].first == offs[k - 1].first + offs[k - 1].second / 8 ? run + 1 : 1;
      if (run > best.accesses) best = {run, offs[k].second};
    }
  }
  return best;
}

void UncoalescedAccessRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.profile || ctx.profile->source.empty()) return;
  const NcuProfile& p = *ctx.profile;
  long long kernel_excess = 0;
  for (const auto& s : p.source) kernel_excess += s.l2_sectors_excessive;
  if (kernel_excess <= 0) return;
  // ncu's whole-kernel estimate, bounded by what the roofline leaves.
  double kernel_gain = 0;
  const NcuRuleResult* ncu_rule = nullptr;
  for (const auto* r : p.rule_results("UncoalescedGlobalAccess"))
    if (r->type == "OPT" && (!ncu_rule || r->estimated_speedup > ncu_rule->estimated_speedup)) ncu_rule = r;
  if (ncu_rule) kernel_gain = gain_from_speedup(ncu_rule->estimated_speedup);
  auto headroom = roofline_headroom(ctx);
  if (headroom && kernel_gain > 0) kernel_gain = std::min(kernel_gain, *headroom);

  long long kernel_sectors = 0;
  for (const auto& s : p.source) kernel_sectors += s.l2_sectors;
  for (const auto& h : hot_lines(ctx)) {
    if (h.l2_sectors_excessive <= 0) continue;
    int line = h.loc.line;
    std::vector<std::pair<const NcuSourceInstruction*, const SassInstruction*>> mem;
    long long sectors = 0, excessive = 0;
    for (uint32_t off : h.addresses) {
      const auto* s = source_at(p, off);
      if (!s) continue;
      sectors += s->l2_sectors;
      excessive += s->l2_sectors_excessive;
      if (s->l2_sectors_excessive > 0) mem.emplace_back(s, sass_at(ctx, off));
    }
    if (sectors <= 0) continue;
    double excess = static_cast<double>(excessive) / static_cast<double>(sectors);
    double share = static_cast<double>(excessive) / static_cast<double>(kernel_excess);
    double of_kernel = static_cast<double>(excessive) / static_cast<double>(std::max(1LL, kernel_sectors));
    if (excess < min_excess_ || of_kernel < min_share_) continue;
    std::stable_sort(mem.begin(), mem.end(),
                     [](const auto& a, const auto& b) { return a.first->l2_sectors_excessive > b.first->l2_sectors_excessive; });
    std::vector<const SassInstruction*> sass;
    for (const auto& [s, i] : mem)
      if (i) sass.push_back(i);

    Finding f = finding_at(ctx, line);
    double ratio = static_cast<double>(sectors) / static_cast<double>(std::max(1LL, sectors - excessive));
    f.symptom = fmt::format("line {}'s global accesses touch {:.1f}x the L2 sectors they need ({} of {} sectors "
                            "excessive, {} of the kernel's)",
                            line, ratio, count(excessive), count(sectors), percent(of_kernel));
    f.evidence.push_back(ctx.source_evidence(line, fmt::format("{} of the kernel's excessive sectors", percent(share))));
    for (size_t k = 0; k < mem.size() && k < 3; ++k) {
      const auto& [s, i] = mem[k];
      if (!i) continue;
      f.evidence.push_back(sass_evidence(*i, ctx, line,
                                         fmt::format("{} L2 sectors, ideal {} ({}-bit access)", count(s->l2_sectors),
                                                     count(s->l2_sectors_ideal), i->access_bits())));
    }
    f.evidence.push_back(profile_evidence(
        ctx, line,
        fmt::format("L2 Theoretical Sectors Global Excessive: {} of {} ({})", count(excessive), count(sectors),
                    percent(excess)),
        "summed over the line's global accesses"));
    if (ncu_rule)
      f.evidence.push_back(profile_evidence(ctx, line, "ncu UncoalescedGlobalAccess: " + ncu_rule->description.substr(0, 200),
                                            fmt::format("ncu estimates {:.1f}% of the runtime", ncu_rule->estimated_speedup)));
    if (auto hit = p.value("Memory Workload Analysis", "L1/TEX Hit Rate"); hit && *hit > 50)
      f.evidence.push_back(profile_evidence(ctx, line, fmt::format("ncu: L1/TEX hit rate {:.1f}%", *hit),
                                            "the L1 cache serves much of the excess: it costs L1/L2 bandwidth and "
                                            "instructions more than DRAM traffic"));
    Split split = split_accesses(sass);
    bool all_narrow = !sass.empty() && std::all_of(sass.begin(), sass.end(), [](const auto* i) { return i->access_bits() <= 32; });
    if (split.accesses >= 2 && all_narrow) {
      int elements = split.accesses;
      f.cause = fmt::format(
          "each thread accesses {} contiguous elements with {} separate {}-bit instructions instead of one "
          "{}-bit access: lanes of a warp are {} bytes apart, so every instruction touches {}x the sectors it uses. "
          "Triton emits the narrow form when it cannot prove the address (and mask) 16-byte aligned",
          elements, elements, split.access_bits, elements * split.access_bits, elements * split.access_bits / 8,
          elements);
      f.proposals.push_back({kAdvice,
                             fmt::format("make line {}'s accesses provably aligned (sizes and strides divisible by "
                                         "16, tl.multiple_of / tl.max_contiguous hints) so they become one "
                                         "{}-bit access per thread",
                                         line, elements * split.access_bits),
                             {{"line", line}, {"elements_per_thread", elements}, {"access_bits", split.access_bits},
                              {"vector_bits", elements * split.access_bits}}});
    } else {
      f.cause = "the lanes of a warp access addresses that are strided or scattered, so each instruction fetches "
                "sectors it mostly does not use";
      f.proposals.push_back({kAdvice,
                             "make consecutive lanes access consecutive addresses (index the contiguous dimension "
                             "with tl.arange, transpose the layout, or stage through shared memory)",
                             {{"line", line}}});
    }
    if (kernel_gain > 1) f.estimated_gain = std::pow(kernel_gain, share);
    f.confidence = 0.8;
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_l1_uncoalesced_access_rule() { return std::make_unique<UncoalescedAccessRule>(); }

}  // namespace tdx
