// l0-long-row-per-program: a straight-line elementwise kernel gives every program one whole long
// row in one 1-D block, so each thread holds many elements.
#include <fmt/format.h>

#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/long_row.h"

namespace tdx {
namespace {

using namespace l0;

class LongRowPerProgramRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-long-row-per-program"; }
  std::string_view description() const override {
    return "A straight-line elementwise kernel (no loop, branch or reduction) whose every program takes one whole "
           "row in one 1-D block, `tl.arange(0, BLOCK)` masked by the row's length, with BLOCK sized from the row: "
           "at least min_elements_per_thread elements per thread at the captured launch. Each thread then keeps "
           "that many values live through the whole computation (a tanh, an exp), which limits how many warps an "
           "SM holds, and the block's padding past the row's length is idle. Nothing ties the elements of a row "
           "together, so the row can be split across a second grid axis of column blocks (split-row).";
  }
  nlohmann::json options() const override { return {{"min_elements_per_thread", min_elements_per_thread_}}; }
  void configure(const nlohmann::json& o) override {
    min_elements_per_thread_ = o.value("min_elements_per_thread", min_elements_per_thread_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  // Liger's GEGLU holds 32 (a 16384-wide block at 16 warps) and runs 1.23x slower than unsloth's
  // flat kernel of the same computation at 8 per thread (H100, results/corpus).
  long long min_elements_per_thread_ = 16;
};

void LongRowPerProgramRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  auto row = long_row(view);
  if (!row || row->elements_per_thread < min_elements_per_thread_) return;
  const int line = row->arange->line;
  Finding f = finding_at(view, line);
  const int warps = view.launch().num_warps();
  f.symptom = fmt::format("every program takes one whole row in a {}-element block ({} = {}) at {} warps: {} "
                          "elements per thread",
                          row->block_value, row->block, row->block_value, warps, row->elements_per_thread);
  f.evidence.push_back(view.source(line, fmt::format("the kernel's one block, sized by {}", row->block)));
  f.evidence.push_back(view.launch_evidence(
      fmt::format("{} programs, one per row, {} = {}, num_warps {}", view.launch().programs(), row->block,
                  row->block_value, warps)));
  f.cause = fmt::format(
      "the block spans the whole row, so the row's length sets each thread's share: {} values live at once per "
      "thread limit the warps an SM holds, and nothing in the kernel needs the row in one program",
      row->elements_per_thread);
  f.confidence = 0.7;
  f.proposals.push_back({"split-row",
                         fmt::format("split each row into column blocks on a second grid axis "
                                     "(`tl.program_id(1) * {} + tl.arange(0, {})`), with a smaller {}",
                                     row->block, row->block, row->block),
                         {{"line", line}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_long_row_per_program_rule() { return std::make_unique<LongRowPerProgramRule>(); }

}  // namespace tdx
