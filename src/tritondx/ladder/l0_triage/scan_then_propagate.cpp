// l0-scan-then-propagate: a blocked prefix scan writes each block's local scan to the output,
// and a later launch reads the output back to add the scanned block totals.
#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/scan_propagate_match.h"

namespace tdx {
namespace {

using namespace l0;

class ScanThenPropagateRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-scan-then-propagate"; }
  std::string_view description() const override {
    return "A blocked prefix scan over several launches in the scan-then-propagate order: one kernel stores "
           "each block's `tl.cumsum` of its input into the output (and the block totals elsewhere), and a later "
           "launch of another kernel loads that output back and stores it again with the scanned totals added. "
           "The output then crosses DRAM three times (written, read, written) besides the input's read. In the "
           "reduce-then-scan order the first kernel stores only the block totals and the last one scans its block "
           "of the input again, adding the totals: the input is read twice and the output written once. The "
           "recomputed scan is the same `tl.cumsum` of the same loaded block, so the result is bit-identical. The "
           "estimated gain is the ratio of the two traffics, (in + 3 out) / (2 in + out) bytes per element.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void ScanThenPropagateRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::string why;
  auto m = match_scan_then_propagate(view, why);
  if (!m) return;
  double in = element_bytes(view.pointee_type(m->input_param));
  double out = in;  // the match requires one element type
  double gain = (in + 3 * out) / (2 * in + out);
  std::string kernel_b = m->kernel_b->str_field("name");

  Finding f = finding_at(view, m->scan_store->line);
  f.symptom = fmt::format("the block scans are written to `{}` and read back by {} to add the block totals: the "
                          "output crosses DRAM three times",
                          m->output_param, kernel_b);
  f.evidence.push_back(view.source(m->scan_store->line, "stores the block's local scan into the output"));
  f.evidence.push_back(view.source(m->input_load->line, "loads the block the scan is computed from"));
  f.evidence.push_back(view.source(m->launch_a->line, fmt::format("launches the local scans on `{}`", m->output_arg)));
  f.evidence.push_back(
      view.source(m->launch_b->line, fmt::format("launches {} on the same `{}`", kernel_b, m->output_arg)));
  f.evidence.push_back(view.source(m->reread_load->line, fmt::format("{} reads the local scans back", kernel_b)));
  f.cause = fmt::format("scan-then-propagate order: per element, {} reads the input and writes the output, then {} "
                        "reads and writes the output again ({:.0f} + 3 x {:.0f} bytes). Reduce-then-scan reads the "
                        "input twice and writes the output once ({:.0f} x 2 + {:.0f} bytes): {:.2f}x less traffic",
                        ctx.function->str_field("name"), kernel_b, in, out, in, out, gain);
  f.confidence = 0.7;
  f.estimated_gain = gain;
  f.proposals.push_back({"reduce-then-scan",
                         fmt::format("drop the local scan's store; {} scans its block of `{}` again and adds the "
                                     "block total",
                                     kernel_b, m->input_arg),
                         {{"output", m->output_param}, {"input", m->input_param}, {"second_kernel", kernel_b}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_scan_then_propagate_rule() { return std::make_unique<ScanThenPropagateRule>(); }

}  // namespace tdx
