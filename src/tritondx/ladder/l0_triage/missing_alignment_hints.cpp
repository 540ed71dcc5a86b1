// l0-missing-alignment-hints: divisibility/contiguity the launch guarantees but the compiler cannot see.
#include <numeric>

#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class MissingAlignmentHintsRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-missing-alignment-hints"; }
  std::string_view description() const override {
    return "The captured launch guarantees an alignment fact that the compiler cannot infer. (1) An "
           "integer argument used in address or mask arithmetic is a multiple of 16 but the launch "
           "carries no tt.divisibility for it (do_not_specialize / do_not_specialize_on_alignment), so "
           "AxisInfo treats it as divisible by 1 and loads/stores stay scalar: let the JIT specialize it. "
           "`x = tl.multiple_of(x, 16)` does not help: Triton 3.6 sets the hint on the defining op, and a "
           "kernel argument has none, so the hint is dropped (a hint on a value derived from it, such as "
           "tl.full([BLOCK], x, tl.int32), is kept and silences the rule). (2) A block index wrapped with "
           "`% N` (the matmul tutorial's `(pid * BLOCK + tl.arange(0, BLOCK)) % N`) on the contiguous "
           "dimension, where N is not specialized: the remainder's contiguity becomes 1. When "
           "g = gcd(N, BLOCK) (a power of two part) is at least 2, runs of g lanes never wrap, so "
           "tl.max_contiguous(tl.multiple_of(offs, g), g) is true and restores g-wide accesses.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  void check_unspecialized(const KernelView& view, FindingSink& sink) const;
  void check_wrapped(const KernelView& view, FindingSink& sink) const;
};

long long pow2_divisor(long long v) { return v == 0 ? 0 : (v & -v); }

void MissingAlignmentHintsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  check_unspecialized(view, sink);
  check_wrapped(view, sink);
}

void MissingAlignmentHintsRule::check_unspecialized(const KernelView& view, FindingSink& sink) const {
  const auto* info = view.ctx().task->kernel(view.ctx().kernel_name());
  if (!info) return;
  // The decorator that turned specialization off, for the finding's line.
  int decorator_line = view.function().line;
  for (const PyNode* d : view.function().children_in("decorator_list"))
    if (d->type == "Call" && (keyword(*d, "do_not_specialize") || keyword(*d, "do_not_specialize_on_alignment")))
      decorator_line = d->line;
  std::vector<const PyNode*> index_exprs;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    if (const PyNode* p = KernelView::pointer_arg(*op)) index_exprs.push_back(p);
    if (const PyNode* m = KernelView::mask_arg(*op)) index_exprs.push_back(m);
  }
  for (const auto& param : info->params) {
    std::string sig = view.signature(param.name);
    if (param.is_constexpr || (sig != "i32" && sig != "i64" && sig != "u32" && sig != "u64")) continue;
    auto v = view.launch().int_arg(param.name);
    if (!v || *v == 0 || *v % 16 != 0 || view.has_divisibility_16(param.name)) continue;
    // A tl.multiple_of on a value derived from the argument asserts the fact; one set directly on
    // the argument is dropped by Triton 3.6 (a function argument has no defining op to carry it).
    auto is_param = [&](const PyNode& n) {
      return n.type == "Name" && n.str_field("id") == param.name && !view.definition(n);
    };
    const PyNode* dropped_hint = nullptr;
    const PyNode* use = nullptr;
    for (const PyNode* e : index_exprs) {
      bool reached = false;
      view.visit_flow(*e, [&](const PyNode& n) {
        if (reached) return false;
        if (n.type == "Call" && call_name(n) == "tl.multiple_of") {
          const PyNode* a = argument(n, 0);
          if (!a || !is_param(*a)) return false;  // a kept hint: the fact is asserted on this path
          dropped_hint = &n;
        }
        if (is_param(n)) reached = true;
        return !reached;
      });
      if (reached) {
        use = e;
        break;
      }
    }
    if (!use) continue;
    Finding f = finding_at(view, decorator_line);
    f.symptom = fmt::format("{}={} is a multiple of 16 but not specialized: the compiler assumes divisibility 1",
                            param.name, *v);
    f.evidence.push_back(view.source(decorator_line, param.do_not_specialize
                                                         ? fmt::format("{} is listed in do_not_specialize", param.name)
                                                         : fmt::format("{} is not specialized", param.name)));
    f.evidence.push_back(view.source(use->line, fmt::format("{} takes part in {}", param.name, view.text(*use))));
    f.evidence.push_back(view.launch_evidence(fmt::format("{}={} ({} % 16 == 0), attrs carry no tt.divisibility",
                                                          param.name, *v, *v)));
    if (dropped_hint)
      f.evidence.push_back(view.source(dropped_hint->line, fmt::format("{} is set on the kernel argument itself, "
                                                                       "which Triton 3.6 drops (the TTIR carries no "
                                                                       "tt.divisibility for it)",
                                                                       view.text(*dropped_hint))));
    f.cause = "without tt.divisibility the AxisInfo divisibility of the argument is 1, so addresses or masks built "
              "from it are not known to be 16-byte aligned and accesses are not vectorized";
    f.confidence = 0.6;
    long long hint = std::min<long long>(pow2_divisor(*v), 16);
    f.proposals.push_back({"add-multiple-of-hint",
                           fmt::format("let the JIT specialize {0}: drop it from {2}, so that it gets "
                                       "tt.divisibility = 16 when the launched value is a multiple of 16 (it is for "
                                       "the task's shapes; `{0} = tl.multiple_of({0}, {1})` on the argument would be "
                                       "dropped)",
                                       param.name, hint,
                                       param.do_not_specialize ? "do_not_specialize" : "do_not_specialize_on_alignment"),
                           {{"param", param.name}, {"multiple_of", hint}}});
    sink.report(std::move(f));
  }
}

void MissingAlignmentHintsRule::check_wrapped(const KernelView& view, FindingSink& sink) const {
  std::vector<const PyNode*> mods;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type == "BinOp" && n.fields.value("op", "") == "Mod") mods.push_back(&n);
  });
  for (const PyNode* mod : mods) {
    const PyNode* rhs = mod->child("right");
    auto bi = decompose_block_index(view, *mod->child("left"));
    if (!rhs || !bi || rhs->type != "Name" || view.definition(*rhs)) continue;
    std::string n = rhs->str_field("id");
    auto nv = view.launch().int_arg(n);
    if (!nv || *nv <= 0 || view.signature(n) == "constexpr" || view.has_divisibility_16(n)) continue;
    long long g = std::min(pow2_divisor(std::gcd(*nv, bi->block)), bi->block);
    if (g < 2) continue;
    const PyNode* op = nullptr;
    for (const PyNode* m : view.calls({"tl.load", "tl.store"}))
      if (const PyNode* p = KernelView::pointer_arg(*m); p && indexes_contiguously(view, *p, *mod)) {
        op = m;
        break;
      }
    if (!op) continue;
    int bytes = element_bytes(view.pointee_type(view.root_pointer(*KernelView::pointer_arg(*op))));
    Finding f = finding_at(view, mod->line);
    f.symptom = fmt::format("{} wraps the contiguous index by an unspecialized {}: contiguity drops to 1",
                            view.text(*mod), n);
    f.evidence.push_back(view.source(mod->line, fmt::format("block of {} wrapped by % {}", bi->block, n)));
    f.evidence.push_back(view.source(op->line, "the wrapped index addresses the contiguous dimension"));
    f.evidence.push_back(view.launch_evidence(fmt::format("{}={} (no tt.divisibility), gcd({}, {}) has power-of-two "
                                                          "part {}",
                                                          n, *nv, *nv, bi->block, g)));
    f.cause = fmt::format("AxisInfo gives x % {} contiguity gcd(contiguity, divisibility) = 1 when {} is not known to be "
                          "divisible; runs of {} lanes never wrap for this launch, so a hint restores {}-element "
                          "accesses{}",
                          n, n, g, g, bytes ? fmt::format(" ({} bytes)", std::min<long long>(g * bytes, 16)) : "");
    f.confidence = 0.5;
    std::string target = view.text(*mod);
    f.proposals.push_back({"add-contiguity-hint",
                           fmt::format("offs = tl.max_contiguous(tl.multiple_of({}, {}), {})", target, g, g),
                           {{"expression", target}, {"multiple_of", g}, {"max_contiguous", g}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_missing_alignment_hints_rule() { return std::make_unique<MissingAlignmentHintsRule>(); }

}  // namespace tdx
