// l0-causal-mask-every-block: a causal key loop that stops at the diagonal but masks every block,
// though only the blocks crossing the diagonal hold a key after a query.
#include "tritondx/source/causal_loop.h"
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class CausalMaskEveryBlockRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-causal-mask-every-block"; }
  std::string_view description() const override {
    return "A causal key loop that already stops at the diagonal (`for start in range(lo, hi, step)` "
           "whose `hi` reads the program's row offset, as causal-loop-bound writes it) and applies "
           "`s = tl.where(rows[:, None] >= cols[None, :], s, -inf)` in every iteration, with `rows = off + "
           "tl.arange(0, BM)` and `cols = start + tl.arange(0, step)`. A block that ends before `off` has "
           "every key before every query of the program, so the mask keeps all its scores: the "
           "comparison and select run on every score element of every block, while only the last BM / "
           "step blocks of a program cross the diagonal. Triton compiles one body for every iteration; it does not split a loop where a "
           "condition becomes uniformly true. Proposes peel-causal-diagonal (the split of the causal "
           "stage of Triton's fused-attention tutorial: an unmasked loop up to `off`, the masked loop "
           "from `off`) when the loop starts at a multiple of the step and `off` is a multiple of it; "
           "otherwise reports without a proposal.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void CausalMaskEveryBlockRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  PyModule::walk(view.function(), [&](const PyNode& loop) {
    if (loop.type != "For") return;
    auto m = match_causal_loop(view, loop);
    if (!m) return;
    auto args = loop.child("iter")->children_in("args");
    // A bound past the diagonal is l0-fully-masked-iterations' finding; a loop that starts at the
    // program's first row holds only the diagonal blocks (already split).
    if (!reads_offset(view, *m, *args[1]) || reads_offset(view, *m, *args[0])) return;
    // 0 when unknown.
    const long long rows_block = view.value(*m->rows_block_node).value_or(0);
    const long long step = view.value(*args[2]).value_or(0);
    std::string refusal = diagonal_split_refusal(view, *m);
    const PyNode* where_stmt = m->where->parent;
    Finding f = finding_at(view, where_stmt->line);
    long long crossing = step > 0 && rows_block > 0 ? std::max(1LL, rows_block / step) : 0;
    std::string diagonal = crossing == 1 ? "only the last block of each program's loop crosses the diagonal"
                           : crossing > 1
                               ? fmt::format("only the last {} blocks of each program's loop cross the diagonal", crossing)
                               : "only the blocks at the end of each program's loop cross the diagonal";
    f.symptom = fmt::format("the causal mask `{}` runs on every key block; {}", view.text(*argument(*m->where, 0)),
                            diagonal);
    f.evidence.push_back(view.source(where_stmt->line, "the causal mask, in every iteration"));
    f.evidence.push_back(view.source(loop.line, fmt::format("the loop from `{}` to the diagonal `{}`",
                                                            view.text(*args[0]), view.text(*args[1]))));
    f.evidence.push_back(view.launch_evidence(view.launch_values(*loop.child("iter"))));
    f.cause = fmt::format("a block that ends at or before `{}` (the program's first row) has every key before every "
                          "query, so the mask keeps every score: its comparison and select over the "
                          "{} tile are spent for nothing in all but the diagonal blocks; Triton compiles one loop "
                          "body for every iteration and does not split the loop where the condition turns uniform",
                          m->offset,
                          step > 0 && rows_block > 0
                              ? fmt::format("{} x {} ({} x {})", m->rows_block, view.text(*args[2]), rows_block, step)
                              : m->rows_block + " x " + view.text(*args[2]));
    if (refusal.empty()) {
      f.confidence = 0.6;
      f.proposals.push_back({"peel-causal-diagonal",
                             fmt::format("split the loop at `{}`: blocks before it without the mask, the diagonal "
                                         "blocks with it",
                                         m->offset),
                             {{"loop_line", loop.line}}});
    } else {
      f.confidence = 0.4;
      f.cause += "; the loop is not split: " + refusal;
    }
    sink.report(std::move(f));
  });
}

}  // namespace

std::unique_ptr<Rule> make_causal_mask_every_block_rule() { return std::make_unique<CausalMaskEveryBlockRule>(); }

}  // namespace tdx
