// l0-redundant-load: the same address loaded twice, with a store to another pointer in between.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class RedundantLoadRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-redundant-load"; }
  std::string_view description() const override {
    return "A tl.load repeats an earlier one in the same loop body (identical pointer, mask and other "
           "text, no name they read redefined in between) and a tl.store or atomic to a *different* "
           "pointer sits between them. Two identical loads with nothing in between are merged by "
           "Triton's CSE, but across a store the compiler must assume the pointers alias and loads "
           "again: extra load instructions and L1/L2 traffic per program. Reuse the first loaded "
           "value (the rule does not fire when the store goes to the same pointer, since the data "
           "may have changed).";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

bool before(const PyNode& a, const PyNode& b) { return std::tie(a.line, a.col) < std::tie(b.line, b.col); }

void RedundantLoadRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  auto loads = view.loads();
  auto writers = view.writes();
  auto signature = [&](const PyNode& load) {
    const PyNode* p = KernelView::pointer_arg(load);
    const PyNode* m = KernelView::mask_arg(load);
    const PyNode* o = KernelView::other_arg(load);
    return (p ? view.squashed_text(*p) : "") + "|" + (m ? view.squashed_text(*m) : "") + "|" +
           (o ? view.squashed_text(*o) : "");
  };
  std::vector<int> reported;
  for (size_t j = 0; j < loads.size(); ++j) {
    const PyNode& second = *loads[j];
    if (keyword(second, "volatile") || !KernelView::pointer_arg(second)) continue;
    for (size_t i = 0; i < j; ++i) {
      const PyNode& first = *loads[i];
      if (!before(first, second) || PyModule::enclosing_loop(first) != PyModule::enclosing_loop(second)) continue;
      if (signature(first) != signature(second)) continue;
      // No name the address reads is redefined between the two loads.
      bool redefined = false;
      for (const PyNode* arg : {KernelView::pointer_arg(first), KernelView::mask_arg(first), KernelView::other_arg(first)}) {
        if (!arg) continue;
        PyModule::walk(*arg, [&](const PyNode& n) {
          if (n.type != "Name") return;
          for (const auto& d : view.definitions(n.str_field("id")))
            if ((d.line > first.end_line || (d.line == first.end_line && d.col > first.end_col)) &&
                (d.line < second.line || (d.line == second.line && d.col <= second.col)))
              redefined = true;
        });
      }
      if (redefined) continue;
      std::string root = view.root_pointer(*KernelView::pointer_arg(first));
      const PyNode* store = nullptr;
      bool same_target = false;
      for (const PyNode* w : writers) {
        if (!before(first, *w) || !before(*w, second)) continue;
        const PyNode* wp = KernelView::pointer_arg(*w);
        std::string wr = wp ? view.root_pointer(*wp) : std::string();
        if (wr.empty() || wr == root) same_target = true;
        else if (!store) store = w;
      }
      if (!store || same_target || root.empty()) continue;
      if (std::find(reported.begin(), reported.end(), second.line) != reported.end()) continue;
      reported.push_back(second.line);
      Finding f = finding_at(view, second.line);
      f.symptom = fmt::format("{} reloads data already loaded on line {}", view.text(second), first.line);
      f.evidence.push_back(view.source(first.line, "first load"));
      f.evidence.push_back(view.source(store->line, fmt::format("a store to {} in between: the compiler assumes it may "
                                                                "alias {}", view.root_pointer(*KernelView::pointer_arg(*store)), root)));
      f.evidence.push_back(view.source(second.line, "identical load"));
      f.cause = "CSE cannot merge loads across a store that may alias; the second load re-issues the same "
                "addresses";
      f.confidence = 0.6;
      f.proposals.push_back({"reuse-loaded-value",
                             fmt::format("reuse the value loaded on line {} instead of loading again", first.line),
                             {{"first_line", first.line}, {"pointer", root}}});
      sink.report(std::move(f));
      break;
    }
  }
}

}  // namespace

std::unique_ptr<Rule> make_redundant_load_rule() { return std::make_unique<RedundantLoadRule>(); }

}  // namespace tdx
