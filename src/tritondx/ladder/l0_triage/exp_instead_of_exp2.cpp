// l0-exp-instead-of-exp2: tl.exp of an affine argument, where exp2 with a folded log2(e) saves a multiply.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

constexpr double kLog2E = 1.4426950408889634;

class ExpInsteadOfExp2Rule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-exp-instead-of-exp2"; }
  std::string_view description() const override {
    return "tl.exp (or tl.math.exp) of an affine argument such as `x - row_max` or `qk * scale`. "
           "Triton 3.6 lowers an fp32 tl.exp to a multiply by log2(e) followed by ex2.approx.f32, so "
           "writing tl.exp2 with log2(e) folded into the existing scale or subtraction (one FMA: "
           "x * (scale * LOG2E) - m * LOG2E) removes one floating-point multiply per element, as "
           "the flash-attention kernels do. The gain is small and only shows in compute-bound "
           "kernels; a plain tl.exp(x) is not reported (exp2(x * LOG2E) compiles to the same code), "
           "nor is tl.log (both tl.log and tl.log2 call libdevice in Triton 3.6).";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

// The argument as written, or what a local name holding it was assigned.
const PyNode* affine_argument(const KernelView& view, const PyNode& arg) {
  const PyNode* e = &arg;
  if (e->type == "Name")
    if (const Definition* d = view.definition(*e); d && d->stmt->type == "Assign" && d->value) e = d->value;
  if (e->type != "BinOp") return nullptr;
  std::string op = e->fields.value("op", "");
  if (op != "Sub" && op != "Add" && op != "Mult" && op != "Div") return nullptr;
  // log2(e) folds for free only into the smaller (scalar or broadcast) side.
  auto numel = [&](const PyNode* n) -> std::optional<long long> {
    auto s = n ? view.shape(*n) : std::nullopt;
    if (!s) return std::nullopt;
    long long k = 1;
    for (long long d : *s) k *= d;
    return k;
  };
  auto l = numel(e->child("left")), r = numel(e->child("right"));
  if (!l || !r || *l == *r) return nullptr;
  if (op == "Div" && *r > *l) return nullptr;  // c / x is not affine in x
  return e;
}

void ExpInsteadOfExp2Rule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<int> reported;
  for (const PyNode* call : view.calls({"tl.exp", "tl.math.exp"})) {
    const PyNode* arg = argument(*call, 0);
    const PyNode* affine = arg ? affine_argument(view, *arg) : nullptr;
    if (!affine || std::find(reported.begin(), reported.end(), call->line) != reported.end()) continue;
    reported.push_back(call->line);
    std::string op = affine->fields.value("op", "");
    std::string l = view.text(*affine->child("left")), r = view.text(*affine->child("right"));
    std::string rewrite;
    if (op == "Sub" || op == "Add")
      rewrite = fmt::format("tl.exp2({} * LOG2E {} {} * LOG2E)", l, op == "Sub" ? "-" : "+", r);
    else if (op == "Mult")
      rewrite = fmt::format("tl.exp2({} * ({} * LOG2E))", l, r);
    else
      rewrite = fmt::format("tl.exp2({} * (LOG2E / {}))", l, r);

    Finding f = finding_at(view, call->line);
    f.symptom = affine == arg ? fmt::format("{} with an affine argument: one extra multiply per element", view.text(*call))
                              : fmt::format("{} of {} = {}: one extra multiply per element", view.text(*call),
                                            view.text(*arg), view.text(*affine));
    f.evidence.push_back(view.source(call->line, "tl.exp lowers to mul by log2(e) + ex2.approx.f32"));
    if (affine != arg) f.evidence.push_back(view.source(affine->line, "the argument is computed here"));
    f.cause = fmt::format("exp(x) is computed as ex2(x * log2(e)); the argument's {} could absorb the log2(e) "
                          "factor (a per-row/per-tile scalar), leaving a single FMA before ex2",
                          op == "Mult" || op == "Div" ? "scale" : "subtraction");
    f.confidence = 0.35;
    f.proposals.push_back({"exp-to-exp2", fmt::format("{} with LOG2E = {}", rewrite, kLog2E),
                           {{"scale", kLog2E}, {"rewrite", rewrite}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_exp_instead_of_exp2_rule() { return std::make_unique<ExpInsteadOfExp2Rule>(); }

}  // namespace tdx
