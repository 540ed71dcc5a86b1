// l0-interleaved-pair-access: even and odd elements of one row through two stride-2 accesses.
#include "tritondx/source/interleaved_pairs.h"
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class InterleavedPairAccessRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-interleaved-pair-access"; }
  std::string_view description() const override {
    return "Two loads (or two adjacent stores) `B + 2 * offs` and `B + 2 * offs + 1`, offs = "
           "tl.arange(0, E), with the same mask: the even and odd elements of one contiguous row of 2E "
           "(an interleaved RoPE pair, a complex number, a (key, value) pair). AxisInfo gives a stride-2 "
           "address contiguity 1, so each thread moves single elements (16-bit accesses for bf16), "
           "every warp request spans twice the bytes it uses, and the two accesses fetch the same "
           "sectors twice. One contiguous access of 2E elements (`B + tl.arange(0, 2 * E)`) reshaped to "
           "(E, 2) and split with tl.split (stores: tl.join, then reshaped) moves whole vectors and "
           "separates the pairs in registers (split-interleaved-pairs); the contiguous row then also "
           "admits rows-per-program.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void InterleavedPairAccessRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  auto pairs = interleaved_pairs(view);
  if (pairs.empty()) return;
  const InterleavedPair& first = pairs.front();
  Finding f = finding_at(view, first.even->line);
  f.symptom = fmt::format("{} pair(s) of stride-2 accesses read or write the even and odd elements of one contiguous "
                          "row (first: `{}`)",
                          pairs.size(), view.text(*KernelView::pointer_arg(*first.even)));
  for (const auto& p : pairs) {
    const char* what = p.store ? "store" : "load";
    f.evidence.push_back(view.source(p.even->line, fmt::format("the even elements' {}, stride 2", what)));
    f.evidence.push_back(view.source(p.odd->line, fmt::format("the odd elements' {} of the same row", what)));
  }
  f.evidence.push_back(view.source(first.offs_stmt->line, fmt::format("{} spans {} of the row's pairs", first.offs,
                                                                      view.text(*first.extent))));
  f.cause = "AxisInfo gives `B + 2 * offs` contiguity 1 (stride 2), so the coalescing pass assigns one element per "
            "thread and access: scalar loads and stores, each warp request touching twice the bytes it uses, the "
            "same sectors fetched by both accesses of the pair";
  f.confidence = 0.75;
  f.proposals.push_back({"split-interleaved-pairs",
                         "one contiguous access of the whole row, the pairs separated with tl.reshape + tl.split "
                         "(stores: tl.join)",
                         {{"line", first.even->line}, {"pairs", pairs.size()}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_interleaved_pair_access_rule() { return std::make_unique<InterleavedPairAccessRule>(); }

}  // namespace tdx
