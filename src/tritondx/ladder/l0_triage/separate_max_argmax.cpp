// l0-separate-max-argmax: tl.max(x) and tl.argmax(x) of one tensor: two reductions for one.
#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/max_argmax.h"

namespace tdx {
namespace {

using namespace l0;

class SeparateMaxArgmaxRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-separate-max-argmax"; }
  std::string_view description() const override {
    return "tl.max(x, axis) and tl.argmax(x, axis) (or tl.min and tl.argmin) of the same tensor, "
           "along the same axis, in one block with x unchanged in between. Triton implements "
           "tl.argmax as tl.max(x, axis, return_indices=True) and keeps only the index, so the kernel "
           "runs two reductions over x (each a shuffle tree across the warp and, across warps, a "
           "round trip through shared memory with barriers) where the (value, index) reduction alone "
           "gives both results. Use `m, i = tl.max(x, axis, return_indices=True)`.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void SeparateMaxArgmaxRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  for (const auto& pair : separate_value_index_reductions(view)) {
    const PyNode& v = *pair.value_call;
    const PyNode& i = *pair.index_call;
    Finding f = finding_at(view, i.line);
    f.symptom = fmt::format("{} and {} reduce the same tensor twice", view.text(v), view.text(i));
    f.evidence.push_back(view.source(v.line, fmt::format("the {} reduction", pair.reduction)));
    f.evidence.push_back(view.source(i.line, fmt::format("the arg{} reduction of the same tensor and axis: Triton "
                                                         "computes it as tl.{}(..., return_indices=True), values "
                                                         "included",
                                                         pair.reduction, pair.reduction)));
    if (const PyNode* loop = PyModule::enclosing_loop(v); loop && loop->type == "For")
      if (auto trips = view.trip_count(*loop))
        f.evidence.push_back(view.source(loop->line, fmt::format("both run {} times per program", *trips)));
    f.cause = fmt::format("Triton does not merge a single-operand tl.{0} reduce with the (value, index) reduce of "
                          "tl.arg{0}; each is its own tt.reduce, lowered to warp shuffles plus a shared-memory "
                          "exchange across warps",
                          pair.reduction);
    f.confidence = 0.7;
    f.proposals.push_back({"fuse-max-argmax",
                           fmt::format("one tl.{}(..., return_indices=True) for both results", pair.reduction),
                           {{"value_line", v.line}, {"index_line", i.line}, {"reduction", pair.reduction}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_separate_max_argmax_rule() { return std::make_unique<SeparateMaxArgmaxRule>(); }

}  // namespace tdx
