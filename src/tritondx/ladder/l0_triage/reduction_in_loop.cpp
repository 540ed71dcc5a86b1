// l0-reduction-in-loop: a loop-carried accumulator is updated with a full reduction of a block
// every iteration (acc += tl.sum(x, axis=0), m = tl.maximum(m, tl.max(x))), so each iteration pays
// a cross-warp reduction: shuffles, a shared-memory exchange and a barrier. Accumulating the block
// elementwise and reducing once after the loop pays it once.
#include <fmt/format.h>

#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/loop_reduction.h"

namespace tdx {
namespace {

using namespace l0;

class ReductionInLoopRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-reduction-in-loop"; }
  std::string_view description() const override {
    return "A loop-carried accumulator is updated with a full reduction of a block every iteration (acc += "
           "tl.sum(x, axis=0), m = tl.maximum(m, tl.max(x))), so each iteration pays a cross-warp reduction: "
           "shuffles, a shared-memory exchange and a barrier. Accumulating the block elementwise and reducing once "
           "after the loop pays it once.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

std::string shape_str(const std::vector<long long>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return out + "]";
}

void ReductionInLoopRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  const int warps = ctx.launch->num_warps();
  for (const LoopReduction& r : loop_reductions(view)) {
    // The running value is needed in the loop (a prefix, online softmax), or the loop exits
    // early: the reduction cannot leave the loop, so there is nothing to report.
    if (!r.blocker.empty()) continue;
    std::optional<long long> trips = r.loop->type == "For" ? view.trip_count(*r.loop) : std::nullopt;
    if (trips && *trips <= 1) continue;  // one iteration: one reduction either way
    const std::string op(loop_reduction_name(r.kind));
    auto shape = view.shape(*r.operand);
    std::string block = shape ? shape_str(*shape) : "block";
    std::string iterations = trips ? fmt::format("the {} iterations", *trips) : std::string("all iterations");

    Finding f = finding_at(view, r.update->line);
    f.symptom = fmt::format("{} is updated with tl.{} of a {} block in every iteration of the loop at line {}", r.acc,
                            op, block, r.loop->line);
    f.evidence.push_back(view.source(r.loop->line, trips ? fmt::format("the loop: {} iterations for this launch", *trips)
                                                         : std::string("the loop")));
    f.evidence.push_back(view.source(r.update->line, fmt::format("a full tl.{} of {} ({}) per iteration, combined "
                                                                 "into the loop-carried {}",
                                                                 op, view.text(*r.operand), block, r.acc)));
    f.evidence.push_back(view.source(r.init->stmt->line, fmt::format("{} starts here, before the loop", r.acc)));
    if (const PyNode* iter = r.loop->type == "For" ? r.loop->child("iter") : nullptr)
      if (auto values = view.launch_values(*iter); !values.empty()) f.evidence.push_back(view.launch_evidence(values));
    f.evidence.push_back(view.launch_evidence(fmt::format("num_warps={}", warps)));
    std::string exchange = warps > 1 ? fmt::format("a shuffle tree within each warp, then a shared-memory exchange "
                                                   "between the {} warps behind a barrier",
                                                   warps)
                                     : std::string("a shuffle tree within the warp");
    std::string elementwise = r.kind == LoopReductionKind::Sum
                                  ? fmt::format("{}_blk += x", r.acc)
                                  : fmt::format("{0}_blk = tl.{1}imum({0}_blk, x)", r.acc, op);
    f.cause = fmt::format(
        "tl.{} reduces the whole block each iteration: {}; {} pay that latency one after another, and the "
        "reduction's wait keeps the next iteration's loads from overlapping it. Only the total is used after the "
        "loop ({} is not read in it), so accumulating the block elementwise ({}: no communication) and reducing "
        "once after the loop pays one reduction per program instead of one per iteration",
        op, exchange, iterations, r.acc, elementwise);
    // With one warp the reduction is shuffles only: cheaper, so the gain is less certain.
    f.confidence = warps > 1 ? 0.7 : 0.5;
    f.proposals.push_back({"reduce-after-loop",
                           fmt::format("accumulate {} elementwise in a {} block across the loop of line {} and "
                                       "reduce it once after the loop",
                                       view.text(*r.operand), block, r.loop->line),
                           {{"loop_line", r.loop->line}, {"reduction_line", r.update->line}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_reduction_in_loop_rule() { return std::make_unique<ReductionInLoopRule>(); }

}  // namespace tdx
