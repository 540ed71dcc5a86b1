// l0-load-without-other-in-reduction: masked lanes of a load without `other` reach a reduction.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class LoadWithoutOtherInReductionRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-load-without-other-in-reduction"; }
  std::string_view description() const override {
    return "A masked tl.load without `other=` feeds a reduction (tl.max/tl.min/tl.argmax/tl.argmin, or "
           "tl.sum/tl.reduce through an operation that does not keep zero at zero, such as tl.exp or "
           "`x - mean`) with no tl.where in between. The masked lanes' value is undefined by the "
           "language; Triton 3.6 fills them with 0, which is not the identity of max/min and becomes "
           "exp(0)=1 or -mean under those operations, so the reduction is wrong whenever a block is "
           "partly masked (rows whose length is not a multiple of the block). This is a correctness "
           "hazard found at L0; the fix is an `other` equal to the reduction's identity (-inf for max, "
           "+inf for min) or a tl.where(mask, value, identity) before the reduction.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

struct Hit {
  const PyNode* load = nullptr;
  bool zero_preserved = true;  // a 0 in the masked lanes is still 0 at the reduction
};

bool keeps_zero(std::string_view call) {
  return call == "tl.abs" || call == "tl.sqrt" || call == "tl.cast" || call == "tl.trans" || call == "tl.reshape" ||
         call == "tl.broadcast_to" || call == "tl.dot" || call == "tl.multiple_of" || call == "tl.erf" ||
         call == "tl.sin";
}

void trace(const KernelView& view, const PyNode& e, bool preserved, std::vector<Hit>& hits, int depth) {
  if (depth > 40) return;
  auto go = [&](const PyNode* n, bool p) {
    if (n) trace(view, *n, p, hits, depth + 1);
  };
  if (e.type == "Name") {
    const Definition* d = view.definition(e);
    if (d && d->value && (d->stmt->type == "Assign" || d->stmt->type == "AnnAssign")) go(d->value, preserved);
    return;
  }
  if (e.type == "Subscript") return go(e.child("value"), preserved);
  if (e.type == "UnaryOp") return go(e.child("operand"), preserved);
  if (e.type == "BinOp") {
    std::string op = e.fields.value("op", "");
    const PyNode* l = e.child("left");
    const PyNode* r = e.child("right");
    if (op == "Mult") return go(l, preserved), go(r, preserved);
    if (op == "Div") return go(l, preserved), go(r, false);
    // x + y keeps zero only when both sides are zero-filled loads themselves.
    std::vector<Hit> lh, rh;
    trace(view, *l, preserved, lh, depth + 1);
    trace(view, *r, preserved, rh, depth + 1);
    bool both = !lh.empty() && !rh.empty();
    for (auto& h : lh) hits.push_back({h.load, h.zero_preserved && both});
    for (auto& h : rh) hits.push_back({h.load, h.zero_preserved && both});
    return;
  }
  if (e.type != "Call") return;
  std::string name = call_name(e);
  if (name == "tl.where") return;  // selects a value for the masked lanes
  if (name == "tl.load") {
    if (KernelView::mask_arg(e) && !KernelView::other_arg(e)) hits.push_back({&e, preserved});
    return;
  }
  const PyNode* f = e.child("func");
  if (f && f->type == "Attribute" && f->str_field("attr") == "to") return go(f->child("value"), preserved);
  bool keep = keeps_zero(name);
  for (const PyNode* a : e.children_in("args")) go(a, preserved && keep);
}

void LoadWithoutOtherInReductionRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<int> reported;
  for (const PyNode* red : view.calls({"tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.sum", "tl.reduce",
                                       "tl.xor_sum", "tl.cumsum"})) {
    const PyNode* arg = argument(*red, 0);
    if (!arg) continue;
    std::string kind = call_name(*red);
    bool order = kind == "tl.max" || kind == "tl.min" || kind == "tl.argmax" || kind == "tl.argmin";
    std::vector<Hit> hits;
    trace(view, *arg, true, hits, 0);
    for (const Hit& h : hits) {
      if (!order && h.zero_preserved) continue;  // a zero fill is the identity of the sum
      if (std::find(reported.begin(), reported.end(), h.load->line) != reported.end()) continue;
      reported.push_back(h.load->line);
      const PyNode* mask = KernelView::mask_arg(*h.load);
      bool never_masked = true;
      for (const PyNode* c : mask_conjuncts(view, *mask)) {
        auto b = mask_bound(view, *c);
        never_masked &= b && b->always_true();
      }
      std::string identity = kind == "tl.max" || kind == "tl.argmax" ? "-float(\"inf\")"
                             : kind == "tl.min" || kind == "tl.argmin" ? "float(\"inf\")"
                                                                         : "0.0";
      Finding f = finding_at(view, h.load->line);
      f.symptom = fmt::format("masked load without other= feeds {}: masked lanes enter the reduction", kind);
      f.evidence.push_back(view.source(h.load->line, fmt::format("mask={} and no other=", view.text(*mask))));
      f.evidence.push_back(view.source(red->line, order ? fmt::format("{} sees the masked lanes' fill value (0 in Triton 3.6)", kind)
                                                        : fmt::format("{} of a value that is not 0 when the load is 0", kind)));
      if (never_masked)
        f.evidence.push_back(view.launch_evidence(fmt::format("{}: no lane is masked for this launch, other shapes are "
                                                              "affected", view.launch_values(*mask))));
      f.cause = order ? fmt::format("0 is not the identity of {}: a partly masked block returns 0 when all valid "
                                    "values are on the other side of it", kind)
                      : "the masked lanes' 0 is transformed into a non-zero value before the sum, so partly masked "
                        "blocks add spurious terms";
      f.confidence = never_masked ? 0.4 : 0.8;
      if (order)
        f.proposals.push_back({"load-other", fmt::format("tl.load(..., other={})", identity),
                               {{"other", identity}, {"reduction", kind}}});
      else
        f.proposals.push_back({kAdvice,
                               fmt::format("{}(tl.where({}, value, 0.0)) or an `other` whose image is 0", kind,
                                           view.text(*mask)),
                               {{"where", view.text(*mask)}, {"identity", identity}, {"reduction", kind}}});
      sink.report(std::move(f));
    }
  }
}

}  // namespace

std::unique_ptr<Rule> make_load_without_other_in_reduction_rule() {
  return std::make_unique<LoadWithoutOtherInReductionRule>();
}

}  // namespace tdx
