// l0-fully-masked-iterations: a causal mask inside a loop whose bound ignores it, so the
// iterations past the diagonal compute scores that the mask then discards.
#include <set>

#include "tritondx/source/causal_loop.h"
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class FullyMaskedIterationsRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-fully-masked-iterations"; }
  std::string_view description() const override {
    return "A loop over key blocks (`for start in range(lo, hi, step)`) whose body applies a causal "
           "mask, `s = tl.where(rows[:, None] >= cols[None, :], s, -inf)` with `rows = off + "
           "tl.arange(0, BM)` fixed for the program and `cols = start + ...`, while `hi` ignores the "
           "program's rows. Every block that starts at or after `off + BM` is masked entirely: its "
           "loads, its tl.dot and its exponentials are computed and thrown away. For a program over "
           "row block i of T, T - i - 1 of its T iterations are wasted, about half of the kernel's "
           "work over the grid. When the masked scores only reach tl.max and tl.exp/tl.exp2 (online "
           "softmax), every value the loop carries is updated from them, and the loop stores nothing, a "
           "fully masked block changes nothing (exp(-inf) = 0, the running max keeps its value), so "
           "the bound can become min(hi, off + BM), as the causal stage of Triton's fused-attention "
           "tutorial does. Proposes causal-loop-bound then; otherwise reports without a proposal.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

// Every read of `name` inside `loop` after `where` feeds tl.max or an exponential only.
bool only_softmax_uses(const KernelView& view, const PyNode& loop, const PyNode& where_stmt, const std::string& name) {
  for (const PyNode* use : view.uses(name)) {
    if (!PyModule::inside(*use, loop) || use->line <= where_stmt.line) continue;
    bool ok = false;
    for (const PyNode* p = use->parent; p && !ok; p = p->parent) {
      if (p->type != "Call") continue;
      std::string f = normalize_triton_name(call_name(*p));
      if (f == "tl.max" || f == "tl.exp" || f == "tl.exp2" || f == "tl.math.exp" || f == "tl.math.exp2") ok = true;
      if (p == &loop) break;
    }
    if (!ok) return false;
  }
  return true;
}

// A loop-carried name (defined before the loop and assigned in it) whose update reads nothing
// computed from the masked scores: a skipped block would have changed it. "" when none.
std::string independent_carried(const KernelView& view, const PyNode& loop, const std::string& scores) {
  // Names the loop computes from the scores (to a fixed point, in source order).
  std::set<std::string> derived = {scores};
  std::vector<const PyNode*> stmts;
  PyModule::walk(loop, [&](const PyNode& n) {
    if (n.type == "Assign" || n.type == "AugAssign") stmts.push_back(&n);
  });
  for (bool grew = true; grew;) {
    grew = false;
    for (const PyNode* st : stmts) {
      const PyNode* value = st->child("value");
      auto targets = st->type == "Assign" ? st->children_in("targets") : std::vector<const PyNode*>{st->child("target")};
      if (!value || targets.size() != 1 || !targets[0] || targets[0]->type != "Name") continue;
      bool reads = false;
      for (const auto& r : PyModule::names_read(*value)) reads |= derived.contains(r);
      if (reads && derived.insert(targets[0]->str_field("id")).second) grew = true;
    }
  }
  for (const PyNode* st : stmts) {
    auto targets = st->type == "Assign" ? st->children_in("targets") : std::vector<const PyNode*>{st->child("target")};
    if (targets.size() != 1 || !targets[0] || targets[0]->type != "Name") return "?";
    std::string name = targets[0]->str_field("id");
    bool carried = false;
    for (const auto& d : view.definitions(name)) carried |= !PyModule::inside(*d.stmt, loop) && d.line < loop.line;
    if (!carried) continue;
    bool reads = false;
    for (const auto& r : PyModule::names_read(*st->child("value"))) reads |= derived.contains(r);
    if (!reads) return name;
  }
  return "";
}

void FullyMaskedIterationsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  PyModule::walk(view.function(), [&](const PyNode& loop) {
    if (loop.type != "For") return;
    auto m = match_causal_loop(view, loop);
    const PyNode* hi = m ? loop.child("iter")->children_in("args")[1] : nullptr;
    if (!m || reads_offset(view, *m, *hi)) return;  // a bound that reads the rows' offset is taken care of
    const PyNode* where_stmt = m->where->parent;
    bool softmax = only_softmax_uses(view, loop, *where_stmt, m->scores);
    std::string independent = independent_carried(view, loop, m->scores);
    bool stores = false;
    PyModule::walk(loop, [&](const PyNode& n) {
      if (n.type == "Call") {
        std::string f = normalize_triton_name(call_name(n));
        if (f == "tl.store" || f.starts_with("tl.atomic")) stores = true;
      }
    });
    auto trips = view.trip_count(loop);
    Finding f = finding_at(view, loop.line);
    f.symptom = fmt::format("the loop visits every key block although `{}` masks every block past the program's "
                            "last row ({}) entirely{}",
                            view.text(*argument(*m->where, 0)), m->bound,
                            trips ? fmt::format(": {} iterations per program, about {} of them wasted on average",
                                                *trips, (*trips - 1) / 2)
                                  : "");
    f.evidence.push_back(view.source(loop.line, fmt::format("the bound `{}` does not depend on the rows", view.text(*hi))));
    f.evidence.push_back(view.source(m->where->line, "the causal mask: keys after the query get -inf"));
    f.evidence.push_back(view.launch_evidence(view.launch_values(*hi)));
    f.cause = fmt::format("blocks starting at or after {} have every key after every query of the program, so "
                          "their loads, dot products and exponentials produce only -inf scores that the mask "
                          "discards; the loop bound does not stop at the diagonal",
                          m->bound);
    const bool skippable = softmax && !stores && independent.empty();
    f.confidence = skippable ? 0.8 : 0.4;
    if (trips && *trips > 1) f.estimated_gain = 2.0 * static_cast<double>(*trips) / static_cast<double>(*trips + 1);
    if (skippable)
      f.proposals.push_back({"causal-loop-bound",
                             fmt::format("stop the loop at the diagonal: range(..., tl.minimum({}, {}), ...)",
                                         view.text(*hi), m->bound),
                             {{"loop_line", loop.line}, {"bound", m->bound}}});
    else if (!softmax)
      f.cause += fmt::format("; `{}` is used beyond tl.max and exponentials, so a skipped block might have "
                             "counted: no rewrite is proposed",
                             m->scores);
    else if (stores)
      f.cause += "; the loop also stores, so skipping blocks is not proposed";
    else
      f.cause += fmt::format("; the loop also updates `{}` from values that do not pass through the mask, so a "
                             "skipped block would change it: no rewrite is proposed",
                             independent);
    sink.report(std::move(f));
  });
}

}  // namespace

std::unique_ptr<Rule> make_fully_masked_iterations_rule() { return std::make_unique<FullyMaskedIterationsRule>(); }

}  // namespace tdx
