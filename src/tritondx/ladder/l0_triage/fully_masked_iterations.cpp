// l0-fully-masked-iterations: a causal mask inside a loop whose bound ignores it, so the
// iterations past the diagonal compute scores that the mask then discards.
#include <set>

#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

// What the rule matched in one loop.
struct CausalLoop {
  const PyNode* loop = nullptr;
  const PyNode* where = nullptr;  // tl.where(rows[:, None] >= cols[None, :], scores, -inf)
  std::string rows, cols, scores;
  std::string bound;  // one past the program's last row: `<rows offset> + <rows block>`
};

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

bool is_neg_inf(const KernelView& view, const PyNode& n) {
  std::string t = view.text(n);
  return t == "float(\"-inf\")" || t == "float('-inf')" || t == "-float(\"inf\")" || t == "-float('inf')" ||
         t == "-math.inf" || t == "float(\"-Inf\")";
}

// `name[:, None]` (axis 0) or `name[None, :]` (axis 1): the name, else "".
std::string broadcast_name(const KernelView& view, const PyNode& n, int axis) {
  if (n.type != "Subscript" || !n.child("value") || n.child("value")->type != "Name") return "";
  std::string t = view.text(n);
  std::string name = n.child("value")->str_field("id");
  std::string want = axis == 0 ? name + "[:, None]" : name + "[None, :]";
  return t == want ? name : "";
}

// rows defined once as `off + tl.arange(0, BM)`: returns "off + BM" (the program's row end).
std::string row_end(const KernelView& view, const std::string& rows) {
  const auto& defs = view.definitions(rows);
  if (defs.size() != 1 || !defs[0].value || defs[0].value->type != "BinOp" ||
      defs[0].value->fields.value("op", "") != "Add")
    return "";
  const PyNode* l = defs[0].value->child("left");
  const PyNode* r = defs[0].value->child("right");
  for (auto [off, ar] : {std::pair{l, r}, {r, l}}) {
    if (!ar || ar->type != "Call" || normalize_triton_name(call_name(*ar)) != "tl.arange") continue;
    const PyNode* lo = argument(*ar, 0);
    const PyNode* hi = argument(*ar, 1);
    if (!lo || !hi || view.value(*lo) != 0) continue;
    return fmt::format("{} + {}", view.text(*off), view.text(*hi));
  }
  return "";
}

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

std::optional<CausalLoop> match(const KernelView& view, const PyNode& loop) {
  const PyNode* iter = loop.child("iter");
  const PyNode* target = loop.child("target");
  if (!iter || iter->type != "Call" || call_name(*iter) != "range" || !target || target->type != "Name") return {};
  auto args = iter->children_in("args");
  if (args.size() != 3) return {};
  auto step = view.value(*args[2]);
  if (!step || *step <= 0) return {};
  const std::string start = target->str_field("id");
  std::optional<CausalLoop> found;
  PyModule::walk(loop, [&](const PyNode& n) {
    if (found || n.type != "Call" || normalize_triton_name(call_name(n)) != "tl.where") return;
    const PyNode* cond = argument(n, 0);
    const PyNode* kept = argument(n, 1);
    const PyNode* other = argument(n, 2);
    if (!cond || !kept || !other || cond->type != "Compare" || !is_neg_inf(view, *other)) return;
    auto ops = cond->fields.value("ops", nlohmann::json::array());
    auto comparators = cond->children_in("comparators");
    if (ops.size() != 1 || comparators.size() != 1 || !cond->child("left")) return;
    std::string op = ops[0].get<std::string>();
    const PyNode* lhs = cond->child("left");
    const PyNode* rhs = comparators[0];
    if (op == "LtE" || op == "Lt") std::swap(lhs, rhs), op = op == "LtE" ? "GtE" : "Gt";
    if (op != "GtE" && op != "Gt") return;
    std::string rows = broadcast_name(view, *lhs, 0), cols = broadcast_name(view, *rhs, 1);
    if (rows.empty() || cols.empty()) return;
    // cols = start + <loop-invariant>; rows fixed outside the loop.
    const auto& cdefs = view.definitions(cols);
    if (cdefs.size() != 1 || !cdefs[0].value || !PyModule::inside(*cdefs[0].stmt, loop)) return;
    if (!PyModule::names_read(*cdefs[0].value).contains(start)) return;
    for (const auto& d : view.definitions(rows))
      if (PyModule::inside(*d.stmt, loop)) return;
    std::string bound = row_end(view, rows);
    if (bound.empty()) return;
    // The result of the where: an assignment `s = tl.where(...)`.
    const PyNode* stmt = n.parent;
    if (!stmt || stmt->type != "Assign" || stmt->children_in("targets").size() != 1 ||
        stmt->children_in("targets")[0]->type != "Name")
      return;
    found = CausalLoop{&loop, &n, rows, cols, stmt->children_in("targets")[0]->str_field("id"), bound};
  });
  return found;
}

void FullyMaskedIterationsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  PyModule::walk(view.function(), [&](const PyNode& loop) {
    if (loop.type != "For") return;
    auto m = match(view, loop);
    if (!m) return;
    const PyNode* hi = loop.child("iter")->children_in("args")[1];
    // A bound that already reads the rows' offset is taken care of.
    std::string off = m->bound.substr(0, m->bound.rfind(" + "));
    for (const auto& name : PyModule::names_read(*hi))
      if (off.find(name) != std::string::npos) return;
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
