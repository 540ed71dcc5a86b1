// l0-host-summed-output: the kernel stores values into a buffer that its launch function only sums.
#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/host_summed_store.h"

namespace tdx {
namespace {

using namespace l0;

class HostSummedOutputRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-host-summed-output"; }
  std::string_view description() const override {
    return "The kernel stores a value per element into a buffer that the launch function allocates "
           "(torch.zeros/empty) and then only sums (torch.sum(buffer) or buffer.sum()): a loss written per "
           "element and reduced on the host, as Liger's JSD does. Every element goes to memory, comes back "
           "for the sum, and the buffer is zero-filled first: three passes over a buffer the size of the "
           "input for one number. Summing in each program and storing one partial per program leaves a "
           "buffer of one value per program to add.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

struct Traffic {
  double buffer = 0, others = 0;  // bytes of the summed buffer, and of the launch's other tensors
};

// The launch's tensors as captured: the buffer makes three passes (the zero fill, the kernel's
// store, the host's sum) that one partial per program removes; the others are read or written once.
Traffic launch_traffic(const LaunchInfo& launch, const std::string& param) {
  Traffic t;
  if (!launch.args.is_object()) return t;
  for (const auto& [name, a] : launch.args.items())
    if (a.is_object() && a.value("kind", "") == "tensor") (name == param ? t.buffer : t.others) += a.value("bytes", 0.0);
  return t;
}

void HostSummedOutputRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  for (const std::string& param : stored_params(view)) {
    auto found = host_summed_store(view, param);
    if (!found || !found->per_element) continue;
    const auto& h = *found;
    Finding f = finding_at(view, h.store->line);
    f.symptom = fmt::format("every element stored through `{}` is summed on the host (line {}): `{}` is written in "
                            "full, read back once, and zero-filled first, for one number",
                            param, h.sum->line, h.buffer);
    f.evidence.push_back(view.source(h.store->line, fmt::format("the kernel's one store through `{}`", param)));
    f.evidence.push_back(view.source(h.allocation->line, fmt::format("`{}` allocated for it", h.buffer)));
    f.evidence.push_back(view.source(h.sum->line, fmt::format("`{}`'s only use after the launch: a full sum",
                                                              h.buffer)));
    f.evidence.push_back(view.launch_evidence(fmt::format("{} programs", view.launch().programs())));
    const Traffic t = launch_traffic(view.launch(), param);
    if (t.buffer > 0 && t.others > 0) {
      // An upper bound: what the launch gains if its time is its memory traffic.
      f.estimated_gain = (t.others + 3 * t.buffer) / t.others;
      f.evidence.push_back(view.launch_evidence(
          fmt::format("`{}` holds {:.1f} MB, passed over three times, beside {:.1f} MB for the launch's other tensors: "
                      "up to {:.2f}x less traffic",
                      h.buffer, t.buffer / 1e6, t.others / 1e6, *f.estimated_gain)));
    }
    f.cause = fmt::format("the reduction of the stored values is left to the host, so `{}` holds one value per "
                          "element where one partial sum per program would do",
                          h.buffer);
    f.confidence = 0.8;
    f.proposals.push_back({"sum-in-kernel",
                           fmt::format("sum the stored values in each program and store one partial per program; "
                                       "the launch function sums the partials instead of `{}`",
                                       h.buffer),
                           {{"param", param}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_host_summed_output_rule() { return std::make_unique<HostSummedOutputRule>(); }

}  // namespace tdx
