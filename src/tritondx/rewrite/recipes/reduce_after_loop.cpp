// reduce-after-loop: moves a reduction out of the loop that repeats it: a scalar accumulator
// updated with tl.sum/tl.max/tl.min of a block every iteration becomes a block accumulator updated
// elementwise, reduced once after the loop.
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/source/loop_reduction.h"
#include "tritondx/source/masked_lane_value.h"
#include "tritondx/source/shape_text.h"

namespace tdx {
namespace {

using l0::KernelView;
using l0::LoopReduction;
using l0::LoopReductionKind;

class ReduceAfterLoopRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "reduce-after-loop"; }
  std::string_view description() const override {
    return "Moves a reduction out of the loop that repeats it: an accumulator updated every iteration with a "
           "full reduction of a block (`acc += tl.sum(x, axis=0)`, `acc = acc + tl.sum(x)`, `m = tl.maximum(m, "
           "tl.max(x))`, `m = tl.minimum(m, tl.min(x))`, or rows `acc += tl.sum(x, axis=1)`) gets a block "
           "companion `acc_blk` shaped like x (its shape spelled by the tl.arange/tl.zeros constexprs that size x) "
           "and started at the reduction's identity before the loop; the update becomes elementwise (`acc_blk += "
           "x`, `acc_blk = tl.maximum(acc_blk, x)`), and the original update, applied to acc_blk, follows the loop. "
           "One cross-warp reduction per program instead of one per iteration; sums change only by rounding. "
           "Declines when the accumulator's running value is read in the loop, when x's shape is not spelled by "
           "constexprs visible before the loop, when x's masked lanes are not the reduction's identity, or when "
           "the loop exits early. Proposed by l0-reduction-in-loop and l1-hot-line-stall.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// Why nothing on `line` takes the rewrite, when no loop reduction updates an accumulator there.
std::string no_update_reason(const KernelContext& ctx, int line) {
  auto calls = recipe_util::kernel_calls_on_line(ctx, {"tl.sum", "tl.max", "tl.min"}, line);
  if (calls.empty()) return fmt::format("line {} has no tl.sum/tl.max/tl.min", line);
  if (!PyModule::enclosing_loop(*calls.front())) return fmt::format("the reduction on line {} is not in a loop", line);
  return fmt::format("the reduction on line {} does not update a loop-carried accumulator in a statement of the loop's "
                     "body (`acc += tl.sum(x)`, `acc = acc + tl.sum(x)`, `m = tl.maximum(m, tl.max(x))`, "
                     "`m = tl.minimum(m, tl.min(x))`)",
                     line);
}

// The dtype of the block accumulator: tl.sum's dtype=, else the accumulator's (from its
// initialization), float32 when the source does not say.
std::string block_dtype(const KernelView& view, const LoopReduction& r, const std::string& tl) {
  if (r.kind == LoopReductionKind::Sum) {
    const PyNode* d = keyword(*r.reduction, "dtype");
    if (!d) d = argument(*r.reduction, 3);
    if (d) return view.text(*d);
  }
  const PyNode* init = r.init->value;
  if (init && init->type == "Call") {
    std::string name = call_name(*init);
    int position = name == "tl.zeros" || name == "tl.empty" ? 1 : name == "tl.full" ? 2 : -1;
    if (position >= 0) {
      const PyNode* d = keyword(*init, "dtype");
      if (!d) d = argument(*init, position);
      if (d) return view.text(*d);
    }
  }
  if (init && init->type == "Constant" && init->fields.value("value", nlohmann::json()).is_number_integer())
    return tl + ".int32";
  return tl + ".float32";
}

// Is every name a dimension is spelled with bound, and not reassigned, before and in the loop?
std::optional<std::string> invisible_dim(const KernelView& view, const LoopReduction& r,
                                         const std::vector<l0::DimText>& dims) {
  for (const auto& d : dims) {
    if (!d.expr) continue;
    for (const auto& name : PyModule::names_read(*d.expr)) {
      if (view.is_param(name) || view.definitions(name).empty()) continue;  // a parameter or a global
      bool before = view.definition_at(name, r.loop->line, r.loop->col) != nullptr;
      for (const auto& def : view.definitions(name))
        if (PyModule::inside(*def.stmt, *r.loop)) before = false;
      if (!before) return fmt::format("the size {} of {}'s block is assigned inside the loop of line {}", d.text,
                                      view.text(*r.operand), r.loop->line);
    }
  }
  return std::nullopt;
}

Expected<std::vector<TextEdit>> ReduceAfterLoopRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const auto& params = in.proposal.params;
  const int line = params.is_object() ? params.value("reduction_line", in.finding.loc.line) : in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> {
    return fail(Stage::Rewrite, std::move(why), line);
  };
  if (!ctx.function || !ctx.task) return refuse("no kernel source");
  KernelView view(ctx);
  const auto reductions = l0::loop_reductions(view);
  const LoopReduction* r = nullptr;
  for (const auto& c : reductions)
    if (c.update->line <= line && line <= c.update->end_line) r = &c;
  if (!r) return refuse(no_update_reason(ctx, line));
  if (int loop_line = params.is_object() ? params.value("loop_line", 0) : 0; loop_line && loop_line != r->loop->line)
    return refuse(fmt::format("the update on line {} is in the loop of line {}, not of line {}", r->update->line,
                              r->loop->line, loop_line));
  if (!r->blocker.empty()) return refuse(r->blocker);
  if (!stmt_util::alone_on_lines(ctx, *r->update))
    return refuse(fmt::format("the update on line {} shares its line with another statement", r->update->line));
  const std::string x = view.text(*r->operand);
  const std::string op(l0::loop_reduction_name(r->kind));

  // The block's shape, spelled by the constexprs that size x.
  auto dims = l0::shape_text(view, *r->operand);
  if (!dims)
    return refuse(fmt::format("the shape of {} (line {}) is not spelled by tl.arange/tl.zeros sizes in the source",
                              x, r->update->line));
  if (dims->empty()) return refuse(fmt::format("{} is a scalar: there is no block to accumulate", x));
  if (auto why = invisible_dim(view, *r, *dims)) return refuse(*why);

  // Masked lanes go into the block accumulator: they must hold the reduction's identity.
  const double identity = r->kind == LoopReductionKind::Sum   ? 0.0
                          : r->kind == LoopReductionKind::Max ? -std::numeric_limits<double>::infinity()
                                                              : std::numeric_limits<double>::infinity();
  const std::string identity_text = r->kind == LoopReductionKind::Sum ? "0" : r->kind == LoopReductionKind::Max ? "-inf" : "inf";
  auto lanes = l0::masked_lanes(view, *r->operand);
  if (!lanes.loads.empty()) {
    const PyNode* load = lanes.loads.front();
    if (!lanes.same_mask)
      return refuse(fmt::format("{} combines loads under different masks (lines {} and {}): its masked lanes cannot "
                                "be shown to hold the identity of tl.{} ({})",
                                x, load->line, lanes.loads.back()->line, op, identity_text));
    std::string source = keyword(*load, "boundary_check")
                             ? fmt::format("the block-pointer load on line {} pads them", load->line)
                         : KernelView::other_arg(*load) ? fmt::format("from the masked load on line {}", load->line)
                                                        : fmt::format("the masked load on line {} has no other=", load->line);
    if (!lanes.value.is(identity))
      return refuse(fmt::format("{}'s masked lanes hold {} ({}), not the identity of tl.{} ({}): accumulated "
                                "elementwise they would enter the result",
                                x, lanes.value.str(), source, op, identity_text));
  }

  const std::string tl = launch_util::tl_prefix(ctx);
  const std::string dtype = block_dtype(view, *r, tl);
  if (r->kind != LoopReductionKind::Sum && dtype.find("int") != std::string::npos)
    return refuse(fmt::format("{} is an integer accumulator ({}): tl.{} has no -inf/inf to start a block from",
                              r->acc, dtype, op));
  const std::string blk = view.fresh_name(r->acc + "_blk");
  const std::string shape = l0::shape_list(*dims);
  const auto& source = ctx.task->source;
  const std::string loop_indent = indentation_of(source, r->loop->line);
  const std::string update_indent = indentation_of(source, r->update->line);
  if (r->loop->end_line >= static_cast<int>(ctx.task->lines.size()))
    return refuse(fmt::format("the loop of line {} ends the file", r->loop->line));

  std::vector<TextEdit> edits;
  // Before the loop: the block companion at the identity.
  std::string init = r->kind == LoopReductionKind::Sum
                         ? fmt::format("{}.zeros({}, dtype={})", tl, shape, dtype)
                         : fmt::format("{}.full({}, {}float(\"inf\"), dtype={})", tl, shape,
                                       r->kind == LoopReductionKind::Max ? "-" : "", dtype);
  edits.push_back(TextEdit::insert_lines(r->loop->line, fmt::format("{}{} = {}\n", loop_indent, blk, init)));
  // In the loop: the elementwise update.
  std::string operand = x.find('\n') == std::string::npos ? x : "(" + x + ")";
  std::string update = r->kind == LoopReductionKind::Sum ? fmt::format("{} += {}", blk, operand)
                                                         : fmt::format("{0} = {1}.{2}imum({0}, {3})", blk, tl, op, operand);
  edits.push_back(stmt_util::replace_lines(r->update->line, r->update->end_line,
                                           fmt::format("{}{}\n", update_indent, update)));
  // After the loop: the original update, reducing the block once.
  std::string after = TDX_TRY(stmt_util::render_lines(ctx, r->update->line, r->update->end_line,
                                                      {TextEdit::replace(*r->operand, blk)}, update_indent, loop_indent));
  edits.push_back(TextEdit::insert_lines(r->loop->end_line + 1, after));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_reduce_after_loop_recipe() { return std::make_unique<ReduceAfterLoopRecipe>(); }

}  // namespace tdx
