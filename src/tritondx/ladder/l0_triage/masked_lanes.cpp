// l0-masked-lanes: for the task's real shapes, most lanes of the blocks are masked off.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class MaskedLanesRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-masked-lanes"; }
  std::string_view description() const override {
    return "A block is much larger than the extent it covers in the captured launch: the masked "
           "fraction of its lanes, computed from the block, the number of blocks that reach "
           "the mask's bound and that bound (e.g. BLOCK=1024 over n=100 leaves 90% of the lanes masked), reaches "
           "min_masked_fraction. Masked lanes still occupy threads, registers and issue slots, so "
           "the program does the work of the whole block for a fraction of the data; a smaller "
           "block (or a chunk that divides the extent better) does the same work with fewer idle lanes.";
  }
  nlohmann::json options() const override { return {{"min_masked_fraction", min_fraction_}}; }
  void configure(const nlohmann::json& o) override { min_fraction_ = o.value("min_masked_fraction", min_fraction_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_fraction_ = 0.5;
};

void MaskedLanesRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<int> reported;
  for (const auto& access : masked_accesses(view)) {
    const MaskBound& b = access.bound;
    if (!b.upper || !b.limit_range || !b.limit_range->is_point()) continue;
    auto bi = decompose_block_index(view, *b.index);
    if (!bi) continue;
    long long limit = b.limit_range->lo + (b.inclusive ? 1 : 0);
    auto launched = coverage(*bi, limit);
    if (!launched || launched->valid <= 0) continue;
    auto cov = launched->of_reaching_blocks(bi->block);
    if (cov.masked_fraction() < min_fraction_) continue;
    int line = bi->arange->line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    reported.push_back(line);

    long long extent = limit - bi->start.lo;
    long long proposed = cov.blocks == 1 ? std::max(16LL, next_pow2(extent)) : best_chunk(extent, bi->block, 0.25);
    if (proposed >= bi->block) continue;  // no smaller block masks fewer lanes
    long long new_lanes = (extent + proposed - 1) / proposed * proposed;
    const PyNode* size_arg = argument(*bi->arange, 1);
    std::string size_text = size_arg ? view.text(*size_arg) : std::string();

    Finding f = finding_at(view, line);
    f.symptom = fmt::format("{:.0f}% of the block's lanes are masked: {} lanes for {} elements",
                            100 * cov.masked_fraction(), cov.lanes, cov.valid);
    f.evidence.push_back(view.source(line, fmt::format("block of {} lanes", bi->block)));
    f.evidence.push_back(view.source(b.compare->line, fmt::format("mask bound: {} (limit {})", view.text(*b.compare), limit)));
    f.evidence.push_back(view.launch_evidence(fmt::format("{}; {} block(s) of {} lanes cover {} elements",
                                                          view.launch_values(*b.compare), cov.blocks, bi->block, extent)));
    f.cause = fmt::format("the block ({}) is sized independently of the extent ({}): {} of {} lanes do no useful "
                          "work but still hold registers and issue instructions",
                          bi->block, extent, cov.lanes - cov.valid, cov.lanes);
    f.confidence = cov.masked_fraction() >= 0.75 ? 0.7 : 0.55;
    f.proposals.push_back(
        {"resize-block",
         fmt::format("size {} from the extent: {} ({} lanes for {} elements, {:.0f}% masked)",
                     size_text.empty() ? "the block" : size_text, proposed, new_lanes, extent,
                     100.0 * double(new_lanes - extent) / double(new_lanes)),
         {{"constexpr", size_text}, {"from", bi->block}, {"block", proposed}, {"extent", extent}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_masked_lanes_rule() { return std::make_unique<MaskedLanesRule>(); }

}  // namespace tdx
