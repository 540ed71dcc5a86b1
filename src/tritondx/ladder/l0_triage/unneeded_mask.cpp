// l0-unneeded-mask: a mask that is true for every lane of the task's launch.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class UnneededMaskRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-unneeded-mask"; }
  std::string_view description() const override {
    return "Every comparison of a load's or store's mask is true for every lane of every program of "
           "the captured launch: the index's largest value (from the grid, the loop ranges and the "
           "block) stays below the bound (e.g. n % BLOCK == 0 and the grid covers n exactly). The mask "
           "and its `other` can then be dropped for these shapes, behind a constexpr flag set by "
           "@triton.heuristics (EVEN_N = n % BLOCK == 0) so other shapes stay correct. Dropping it "
           "removes the predicate math and, when the bound is not known to the compiler to be a "
           "multiple of 16 (not specialized), the per-element mask that blocks vectorization.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void UnneededMaskRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<int> reported;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* mask = KernelView::mask_arg(*op);
    if (!mask) continue;
    auto conjuncts = mask_conjuncts(view, *mask);
    std::vector<MaskBound> bounds;
    for (const PyNode* c : conjuncts)
      if (auto b = mask_bound(view, *c); b && b->always_true()) bounds.push_back(*b);
    if (bounds.empty() || bounds.size() != conjuncts.size()) continue;
    if (std::find(reported.begin(), reported.end(), op->line) != reported.end()) continue;
    reported.push_back(op->line);

    bool unspecialized = false;
    std::vector<std::string> conditions;
    Finding f = finding_at(view, op->line);
    std::string mask_text = view.text(*mask);
    if (mask->type == "Name")
      if (const Definition* d = view.definition(*mask); d && d->value) mask_text += " = " + view.text(*d->value);
    f.symptom = fmt::format("mask {} is always true for the captured launch", mask_text);
    // One evidence link per line: the access, then each bound comparison with its values.
    std::vector<std::pair<int, std::string>> notes = {{op->line, "masked access"}};
    for (const auto& b : bounds) {
      std::string note = fmt::format("{}: index at most {} {} bound {}", view.text(*b.compare),
                                     b.upper ? b.index_range->hi : b.index_range->lo,
                                     b.upper ? (b.inclusive ? "<=" : "<") : (b.inclusive ? ">=" : ">"),
                                     b.upper ? b.limit_range->lo : b.limit_range->hi);
      auto same = std::find_if(notes.begin(), notes.end(), [&](const auto& n) { return n.first == b.compare->line; });
      if (same != notes.end()) same->second += "; " + note;
      else notes.emplace_back(b.compare->line, note);
      std::string limit = view.text(*b.limit);
      if (b.limit->type == "Name" && !view.definition(*b.limit) && view.is_param(limit) &&
          !view.has_divisibility_16(limit) && view.signature(limit) != "constexpr")
        unspecialized = true;
      if (auto bi = decompose_block_index(view, *b.index))
        if (const PyNode* size = argument(*bi->arange, 1))
          conditions.push_back(fmt::format("{} % {} == 0", limit, view.text(*size)));
    }
    for (auto& [line, note] : notes) f.evidence.push_back(view.source(line, std::move(note)));
    f.evidence.push_back(view.launch_evidence(view.launch_values(*mask)));
    f.cause = "the grid and block sizes tile the bounds exactly, so no lane is ever masked; the mask still costs "
              "compares and predicates per element";
    if (unspecialized)
      f.cause += ", and its bound is not specialized as a multiple of 16, so the mask also limits vectorization";
    f.confidence = unspecialized ? 0.65 : 0.45;
    std::string condition;
    for (const auto& c : conditions) condition += (condition.empty() ? "" : " and ") + c;
    f.proposals.push_back({"even-shape-heuristic",
                           fmt::format("add a constexpr flag set by @triton.heuristics ({}) and skip the mask{} when "
                                       "it holds",
                                       condition.empty() ? "bounds divisible by the blocks" : condition,
                                       KernelView::other_arg(*op) ? " and other" : ""),
                           {{"mask", view.text(*mask)}, {"condition", condition}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_unneeded_mask_rule() { return std::make_unique<UnneededMaskRule>(); }

}  // namespace tdx
