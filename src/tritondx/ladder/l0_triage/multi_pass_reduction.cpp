// l0-multi-pass-reduction: the same data is read from global memory in several sequential loops.
#include <map>

#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class MultiPassReductionRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-multi-pass-reduction"; }
  std::string_view description() const override {
    return "Several sequential (not nested) loops of a kernel iterate over the same range and load the "
           "same addresses of the same pointer: softmax as max pass, sum pass and normalize pass, or "
           "layer norm as mean pass and variance pass. Each pass reads the data from global memory "
           "again; one pass suffices with an online reduction (online softmax: running max and "
           "rescaled sum; Welford for mean/variance), or a single block holding the whole row. The "
           "estimated gain is the traffic ratio (reading passes + writing passes) / (1 + writing "
           "passes), an upper bound when re-reads would hit L2.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

struct Pass {
  const PyNode* loop = nullptr;
  const PyNode* load = nullptr;
};

// A max pass followed by a pass summing exponentials: the shape online-softmax fuses. Layer norm's
// mean and variance passes, or a pass after an already-online softmax, are not it.
bool max_then_sum_of_exp(const std::vector<Pass>& passes) {
  for (size_t i = 0; i < passes.size(); ++i) {
    if (PyModule::calls(*passes[i].loop, {"tl.max"}).empty()) continue;
    for (size_t j = i + 1; j < passes.size(); ++j)
      if (!PyModule::calls(*passes[j].loop, {"tl.sum"}).empty() &&
          !PyModule::calls(*passes[j].loop, {"tl.exp", "tl.exp2"}).empty())
        return true;
  }
  return false;
}

bool nested(const PyNode* a, const PyNode* b) {  // is a inside b?  // is a inside b?
  for (const PyNode* p = a->parent; p; p = p->parent)
    if (p == b) return true;
  return false;
}

void MultiPassReductionRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  // Group loads by (pointer, address text, loop range); one pass per loop.
  std::map<std::string, std::vector<Pass>> groups;
  std::vector<std::string> order;
  for (const PyNode* load : view.loads()) {
    const PyNode* loop = PyModule::enclosing_loop(*load);
    const PyNode* ptr = KernelView::pointer_arg(*load);
    if (!loop || loop->type != "For" || !ptr) continue;
    std::string root = view.root_pointer(*ptr);
    const PyNode* iter = loop->child("iter");
    if (root.empty() || !iter) continue;
    std::string key = root + "\x1f" + view.text(*ptr) + "\x1f" + view.range_key(*iter);
    auto& passes = groups[key];
    if (passes.empty()) order.push_back(key);
    bool same_loop = false;
    for (const auto& p : passes) same_loop |= p.loop == loop || nested(loop, p.loop) || nested(p.loop, loop);
    if (!same_loop) passes.push_back({loop, load});
  }
  for (const auto& key : order) {
    const auto& passes = groups[key];
    if (passes.size() < 2) continue;
    std::string root = view.root_pointer(*KernelView::pointer_arg(*passes[0].load));
    int writes = 0;
    for (const auto& p : passes) writes += PyModule::calls(*p.loop, {"tl.store"}).empty() ? 0 : 1;
    int reads = static_cast<int>(passes.size());
    double gain = double(reads + writes) / double(1 + writes);

    // How much of a row is re-read, and would a wave of programs keep it in L2?
    auto trips = view.trip_count(*passes[0].loop);
    auto elems = view.elements(*passes[0].load);
    int bytes = element_bytes(view.pointee_type(root));
    std::string l2_note;
    double confidence = 0.75;
    if (trips && elems && bytes && ctx.target && ctx.target->l2_bytes > 0) {
      long long row_bytes = *trips * *elems * bytes;
      int warps = std::max(ctx.launch->num_warps(), 1);
      long long resident = std::min<long long>(ctx.launch->programs(),
                                               static_cast<long long>(ctx.target->sm_count) *
                                                   std::min(ctx.target->max_warps_per_sm / warps, ctx.target->max_blocks_per_sm));
      long long working_set = row_bytes * resident;
      if (working_set <= ctx.target->l2_bytes) {
        confidence = 0.6;
        l2_note = fmt::format("; {} resident programs x {} bytes per row = {:.1f} MiB fits the {:.0f} MiB L2, "
                              "so re-reads may partly hit L2 and the gain is an upper bound",
                              resident, row_bytes, working_set / 1048576.0, ctx.target->l2_bytes / 1048576.0);
      } else {
        l2_note = fmt::format("; {} resident programs x {} bytes per row = {:.1f} MiB exceeds the {:.0f} MiB L2",
                              resident, row_bytes, working_set / 1048576.0, ctx.target->l2_bytes / 1048576.0);
      }
    }

    Finding f = finding_at(view, passes[0].load->line);
    f.symptom = fmt::format("{} passes read the same data of {} from global memory", reads, root);
    for (size_t i = 0; i < passes.size(); ++i) {
      f.evidence.push_back(view.source(passes[i].loop->line, fmt::format("pass {} of {}", i + 1, reads)));
      f.evidence.push_back(view.source(passes[i].load->line, fmt::format("pass {} loads {}", i + 1,
                                                                           view.text(*KernelView::pointer_arg(*passes[i].load)))));
    }
    if (const PyNode* iter = passes[0].loop->child("iter"))
      if (auto values = view.launch_values(*iter); !values.empty()) f.evidence.push_back(view.launch_evidence(values));
    f.cause = fmt::format("the reduction is split into {} sequential loops over the same range, each reloading the "
                          "data; {} pass(es) also write. Traffic ({} reads + {} writes) / (1 read + {} writes) = "
                          "{:.2f}x{}",
                          reads, writes, reads, writes, writes, gain, l2_note);
    f.confidence = confidence;
    f.estimated_gain = gain;
    const std::string fuse =
        "fuse the passes: an online reduction (online softmax with a running max and rescaled sum, Welford for "
        "mean/variance) or one block covering the whole row";
    // single-pass-reduction rewrites passes that are top-level `for` loops of the kernel.
    const PyNode* enclosing = nullptr;
    int top_level = 0;
    for (const auto& p : passes) {
      if (p.loop->type == "For" && p.loop->parent == &view.function()) ++top_level;
      else if (!enclosing) enclosing = p.loop->parent;
    }
    if (top_level >= 2)
      f.proposals.push_back({"single-pass-reduction", fuse, {{"pointer", root}, {"passes", reads}, {"writes", writes}}});
    else
      f.proposals.push_back({kAdvice,
                             fmt::format("{} (single-pass-reduction fuses top-level passes only; these sit inside "
                                         "the {} at line {})",
                                         fuse, enclosing ? enclosing->type : std::string("block"),
                                         enclosing ? enclosing->line : passes[0].loop->line),
                             {{"pointer", root}, {"passes", reads}, {"writes", writes}}});
    if (max_then_sum_of_exp(passes))
      f.proposals.push_back({"online-softmax",
                             "fuse the max pass and the sum-of-exponentials pass into one loop with a running max and "
                             "a rescaled sum (rows of any length)",
                             {{"pointer", root}, {"passes", reads}, {"writes", writes}}});
    else
      f.proposals.push_back({kAdvice,
                             "for rows longer than one block, merge the passes with an online update: Welford's "
                             "running mean and M2 for mean/variance, a running max with a rescaled sum for softmax "
                             "(no built-in recipe rewrites these loops)",
                             {{"pointer", root}, {"passes", reads}, {"writes", writes}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_multi_pass_reduction_rule() { return std::make_unique<MultiPassReductionRule>(); }

}  // namespace tdx
