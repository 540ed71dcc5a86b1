// hoist-load: move a loop-invariant `name = tl.load(...)` out of the loop it sits in.
#include <fmt/format.h>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using recipe_util::squash;
using l0::KernelView;

class HoistLoadRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "hoist-load"; }
  std::string_view description() const override {
    return "Moves a loop-invariant `name = tl.load(...)` statement out of its loop, just before it "
           "(l3-loop-not-pipelined: the load feeds no dot operand, so it is issued synchronously every "
           "iteration; Triton's own LICM does not hoist it when the loop also stores). The statement must "
           "sit directly in the loop body, read no name the loop assigns, be the only assignment of its "
           "name in the loop with no read before it, and every store in the loop must go to a pointer "
           "the launch binds to another tensor; the loop must run at least once for the captured launch "
           "(or the load be masked).";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> HoistLoadRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  KernelView view(ctx);
  auto loads = recipe_util::kernel_calls_on_line(ctx, {"tl.load"}, line);
  if (loads.size() != 1) return refuse(fmt::format("{} tl.load calls on the finding's line, expected one", loads.size()));
  const PyNode& load = *loads.front();
  const PyNode* stmt = load.parent;
  if (!stmt || stmt->type != "Assign" || load.field != "value")
    return refuse("the load is not the whole value of an assignment");
  auto targets = stmt->children_in("targets");
  if (targets.size() != 1 || targets[0]->type != "Name") return refuse("the load is not assigned to one name");
  std::string name = targets[0]->str_field("id");
  const PyNode* loop = stmt->parent;
  if (!loop || (loop->type != "For" && loop->type != "While") || stmt->field != "body")
    return refuse("the load is not directly in a loop body");
  if (keyword(load, "volatile")) return refuse("the load is volatile");

  // Invariance: nothing the load reads is assigned in the loop.
  auto written = PyModule::names_written(*loop);
  for (const auto& r : PyModule::names_read(load))
    if (written.contains(r)) return refuse(fmt::format("the load reads {}, which the loop assigns", r));
  // `name` is assigned once in the loop and not read before that.
  int assignments = 0;
  for (const PyNode* s : loop->children_in("body")) {
    if (s != stmt && PyModule::names_written(*s).contains(name)) ++assignments;
    if (std::tie(s->line, s->col) < std::tie(stmt->line, stmt->col) && PyModule::names_read(*s).contains(name))
      return refuse(fmt::format("{} is read in the loop before line {}", name, stmt->line));
  }
  if (assignments > 0) return refuse(fmt::format("{} is assigned again in the loop", name));
  if (loop->type == "While" || (PyModule::names_read(*loop->child("iter")).contains(name)))
    return refuse("only `for` loops whose range does not read the loaded name");

  // Memory: no store in the loop may write the loaded tensor.
  std::string root = view.root_pointer(*KernelView::pointer_arg(load));
  const PyNode* call = stmt_util::launch_call(ctx);
  const PyNode* loaded = call && !root.empty() ? stmt_util::launch_argument(ctx, *call, root) : nullptr;
  if (!loaded) return refuse("the launch call does not show which tensor the load reads");
  for (const PyNode* w : PyModule::calls(*loop, {"tl.store", "tl.atomic_add", "tl.atomic_max", "tl.atomic_min",
                                                 "tl.atomic_xchg", "tl.atomic_cas", "tl.atomic_and", "tl.atomic_or",
                                                 "tl.atomic_xor"})) {
    std::string wroot = view.root_pointer(*KernelView::pointer_arg(*w));
    const PyNode* stored = wroot.empty() ? nullptr : stmt_util::launch_argument(ctx, *call, wroot);
    if (!stored || wroot == root || squash(recipe_util::text(ctx, *stored)) == squash(recipe_util::text(ctx, *loaded)))
      return refuse(fmt::format("line {}: the loop may store into the loaded tensor", w->line));
  }
  // The hoisted load runs even when the loop does not.
  auto trips = view.trip_count(*loop);
  if (!KernelView::mask_arg(load) && (!trips || *trips < 1))
    return refuse("the loop may run zero times and the load is unmasked");

  std::string from = indentation_of(ctx.task->source, stmt->line);
  std::string to = indentation_of(ctx.task->source, loop->line);
  std::string text = TDX_TRY(stmt_util::render_lines(ctx, stmt->line, stmt->end_line, {}, from, to));
  return std::vector<TextEdit>{TextEdit::insert_lines(loop->line, text),
                               stmt_util::replace_lines(stmt->line, stmt->end_line, "")};
}

}  // namespace

std::unique_ptr<Recipe> make_hoist_load_recipe() { return std::make_unique<HoistLoadRecipe>(); }

}  // namespace tdx
