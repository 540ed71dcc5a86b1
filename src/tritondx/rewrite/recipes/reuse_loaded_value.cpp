// reuse-loaded-value: a second identical tl.load becomes the name the first one was assigned to.
#include <fmt/format.h>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using recipe_util::squash;
using l0::Definition;
using l0::KernelView;

class ReuseLoadedValueRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "reuse-loaded-value"; }
  std::string_view description() const override {
    return "Replaces a tl.load that repeats an earlier one (l0-redundant-load: same pointer, mask and "
           "other, a store to another pointer in between) by the name the first load was assigned to. "
           "The first load must be the whole value of `name = tl.load(...)`, in a block that encloses "
           "the second load, with `name` and every name the address reads unchanged in between, and "
           "the launch must pass different tensors for the loaded and the stored pointers (a store "
           "into the loaded tensor would make the reuse wrong).";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> ReuseLoadedValueRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function) return refuse("no captured launch");
  int first_line = in.proposal.params.value("first_line", 0);
  KernelView view(ctx);
  auto signature = [&](const PyNode& load) {
    const PyNode* p = KernelView::pointer_arg(load);
    const PyNode* m = KernelView::mask_arg(load);
    const PyNode* o = KernelView::other_arg(load);
    std::string kws;
    for (const PyNode* kw : load.children_in("keywords"))
      if (kw->str_field("arg") != "mask" && kw->str_field("arg") != "other") kws += "|" + recipe_util::text(ctx, *kw);
    return squash((p ? view.text(*p) : "") + "|" + (m ? view.text(*m) : "") + "|" + (o ? view.text(*o) : "") + kws);
  };
  auto firsts = recipe_util::kernel_calls_on_line(ctx, {"tl.load"}, first_line);
  auto seconds = recipe_util::kernel_calls_on_line(ctx, {"tl.load"}, line);
  for (const PyNode* second : seconds)
    for (const PyNode* first : firsts) {
      if (signature(*first) != signature(*second) || first == second) continue;
      const PyNode* stmt = first->parent;
      if (!stmt || stmt->type != "Assign" || first->field != "value") return refuse("the first load is not assigned to a name");
      auto targets = stmt->children_in("targets");
      if (targets.size() != 1 || targets[0]->type != "Name") return refuse("the first load is not assigned to one name");
      std::string name = targets[0]->str_field("id");
      if (!stmt->parent || !PyModule::inside(*second, *stmt->parent))
        return refuse(fmt::format("line {} is not always executed before line {}", first_line, line));
      // The name still holds the first load at the second one, and the address reads the same values.
      const Definition* d = view.definition_at(name, second->line, second->col);
      if (!d || d->stmt != stmt) return refuse(fmt::format("{} is reassigned before line {}", name, line));
      for (const auto& r : PyModule::names_read(*first)) {
        const Definition* at_first = view.definition_at(r, first->line, first->col);
        const Definition* at_second = view.definition_at(r, second->line, second->col);
        if (at_first != at_second) return refuse(fmt::format("{} changes between the two loads", r));
      }
      // Stores in between must go to other tensors than the loaded one.
      std::string root = view.root_pointer(*KernelView::pointer_arg(*first));
      const PyNode* call = stmt_util::launch_call(ctx);
      const PyNode* loaded = call ? stmt_util::launch_argument(ctx, *call, root) : nullptr;
      if (!loaded) return refuse(fmt::format("the launch call does not show which tensor {} is", root));
      for (const PyNode* w : view.writes()) {
        if (std::tie(w->line, w->col) < std::tie(first->line, first->col) ||
            std::tie(w->line, w->col) > std::tie(second->line, second->col))
          continue;
        std::string wroot = view.root_pointer(*KernelView::pointer_arg(*w));
        const PyNode* stored = wroot.empty() ? nullptr : stmt_util::launch_argument(ctx, *call, wroot);
        if (!stored || wroot == root || squash(recipe_util::text(ctx, *stored)) == squash(recipe_util::text(ctx, *loaded)))
          return refuse(fmt::format("line {}: the store may write the loaded tensor", w->line));
      }
      return std::vector<TextEdit>{TextEdit::replace(*second, name)};
    }
  return refuse(fmt::format("no load on line {} matches one on line {}", line, first_line));
}

}  // namespace

std::unique_ptr<Recipe> make_reuse_loaded_value_recipe() { return std::make_unique<ReuseLoadedValueRecipe>(); }

}  // namespace tdx
