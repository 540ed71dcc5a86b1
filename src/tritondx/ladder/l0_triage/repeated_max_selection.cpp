// l0-repeated-max-selection: top-k by K rounds of max, store and mask-out, each round a full
// reduction over the tensor that waits for the one before.
#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/repeated_max_match.h"

namespace tdx {
namespace {

using namespace l0;

class RepeatedMaxSelectionRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-repeated-max-selection"; }
  std::string_view description() const override {
    return "Top-k written as a loop of K rounds: take the maximum of a 1-D tensor with its index (tl.max with "
           "return_indices, or tl.max and tl.argmax), store the maximum at an address that depends on the round, "
           "and mask its position with -inf. Each round is a reduction over the whole tensor (in-thread compares, "
           "a shuffle tree, and across warps a shared-memory exchange with barriers) that cannot start before the "
           "previous round's mask, so the kernel runs K dependent reductions and K scalar stores. tl.topk (a "
           "bitonic top-k network, Triton 3.2 and later) sorts groups of K and merges them with elementwise "
           "compare-and-swap steps, in log depth, and its K results leave in one vector store.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void RepeatedMaxSelectionRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  for (const auto& s : repeated_max_selections(view)) {
    Finding f = finding_at(view, s.loop->line);
    f.symptom = fmt::format("top-{} of the {}-element {} by {} dependent max-and-mask rounds", s.trips, s.length,
                            s.tensor, s.trips);
    f.evidence.push_back(view.source(s.loop->line, fmt::format("{} rounds for the captured launch", s.trips)));
    f.evidence.push_back(view.source(s.max_call->line, fmt::format("a reduction over all {} elements per round", s.length)));
    f.evidence.push_back(view.source(s.store->line, "one scalar store per round"));
    f.evidence.push_back(view.source(s.mask_out->line, fmt::format("masks the selected position: round k+1 waits for "
                                                                   "round k's reduction")));
    f.cause = fmt::format("each round's reduction (tt.reduce: in-thread compares, a shuffle tree, a shared-memory "
                          "exchange and barriers across warps) depends on the previous round's mask, so the {} "
                          "rounds serialize; a bitonic top-k network needs no such chain",
                          s.trips);
    f.confidence = 0.5;
    f.proposals.push_back({"bitonic-topk",
                           fmt::format("replace the loop by tl.topk({}, {}) and one store of the {} values",
                                       s.tensor, view.text(*s.trips_expr), s.trips),
                           {{"loop_line", s.loop->line}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_repeated_max_selection_rule() { return std::make_unique<RepeatedMaxSelectionRule>(); }

}  // namespace tdx
