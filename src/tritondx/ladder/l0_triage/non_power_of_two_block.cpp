// l0-non-power-of-two-block: a block that is not a power of two, or a power-of-two block
// padded over a non-power-of-two extent.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class NonPowerOfTwoBlockRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-non-power-of-two-block"; }
  std::string_view description() const override {
    return "tl.arange needs a power-of-two length, so an extent that is not a power of two (a row of "
           "n_cols=3000) covered by one block is padded to the next power of two (4096), leaving "
           "(4096-3000)/4096 = 27% of the lanes masked in every program. The rule reports a single "
           "block per extent whose padding reaches min_masked_fraction and proposes a power-of-two "
           "chunk that divides the extent better (a loop of 3 x 1024 leaves 2.3% masked). A tl.arange "
           "whose length is not a power of two at all is reported too: Triton rejects it at compile time.";
  }
  nlohmann::json options() const override {
    return {{"min_masked_fraction", min_fraction_}, {"max_chunk_waste", max_chunk_waste_}};
  }
  void configure(const nlohmann::json& o) override {
    min_fraction_ = o.value("min_masked_fraction", min_fraction_);
    max_chunk_waste_ = o.value("max_chunk_waste", max_chunk_waste_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_fraction_ = 0.25;
  double max_chunk_waste_ = 0.05;
};

void NonPowerOfTwoBlockRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<int> reported;
  auto once = [&](int line) {
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) return false;
    reported.push_back(line);
    return true;
  };
  // A length Triton refuses.
  for (const PyNode* a : view.calls({"tl.arange"})) {
    auto r = view.range(*a);
    if (!r) continue;
    long long n = r->hi - r->lo + 1;
    if (is_pow2(n) || !once(a->line)) continue;
    Finding f = finding_at(view, a->line);
    f.symptom = fmt::format("tl.arange of {} elements: not a power of two", n);
    f.evidence.push_back(view.source(a->line, fmt::format("{} = {} lanes", view.text(*a), n)));
    f.evidence.push_back(view.launch_evidence(view.launch_values(*a)));
    f.cause = "Triton requires tl.arange's length to be a power of two; compiling this launch fails";
    f.confidence = 0.95;
    f.proposals.push_back({kAdvice, fmt::format("use {} lanes and mask the last {}", next_pow2(n), next_pow2(n) - n),
                           {{"from", n}, {"block", next_pow2(n)}}});
    sink.report(std::move(f));
  }
  // A power-of-two block padded over one extent.
  for (const auto& access : masked_accesses(view)) {
    const MaskBound& b = access.bound;
    if (!b.upper || !b.limit_range || !b.limit_range->is_point()) continue;
    auto bi = decompose_block_index(view, *b.index);
    if (!bi || !is_pow2(bi->block)) continue;
    long long extent = b.limit_range->lo + (b.inclusive ? 1 : 0) - bi->start.lo;
    auto cov = coverage(*bi, extent + bi->start.lo);
    if (!cov || cov->blocks != 1 || extent <= 0 || is_pow2(extent) || next_pow2(extent) != bi->block) continue;
    if (cov->masked_fraction() < min_fraction_ || !once(bi->arange->line)) continue;
    long long chunk = best_chunk(extent, bi->block / 2, max_chunk_waste_);
    long long chunk_lanes = (extent + chunk - 1) / chunk * chunk;
    double chunk_waste = double(chunk_lanes - extent) / double(chunk_lanes);
    const PyNode* size_arg = argument(*bi->arange, 1);

    Finding f = finding_at(view, bi->arange->line);
    f.symptom = fmt::format("extent {} padded to a {}-lane block: {:.0f}% of the lanes masked", extent, bi->block,
                            100 * cov->masked_fraction());
    f.evidence.push_back(view.source(bi->arange->line, fmt::format("one block of {} lanes", bi->block)));
    f.evidence.push_back(view.source(b.compare->line, fmt::format("mask bound {} = {}", view.text(*b.limit), extent)));
    f.evidence.push_back(view.launch_evidence(view.launch_values(*b.compare)));
    f.cause = fmt::format("{} is not a power of two, so the single block rounds it up to {} and {} lanes per program "
                          "idle (registers and threads, not memory traffic)",
                          extent, bi->block, bi->block - extent);
    f.confidence = 0.45;
    f.proposals.push_back({kAdvice,
                           fmt::format("loop over the extent in chunks of {} ({} iterations, {:.1f}% masked)", chunk,
                                       chunk_lanes / chunk, 100 * chunk_waste),
                           {{"constexpr", size_arg ? view.text(*size_arg) : std::string()},
                            {"from", bi->block},
                            {"block", chunk},
                            {"iterations", chunk_lanes / chunk},
                            {"masked_fraction", chunk_waste}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_non_power_of_two_block_rule() { return std::make_unique<NonPowerOfTwoBlockRule>(); }

}  // namespace tdx
