#include "tritondx/ladder/autotuned_proposals.h"

#include <fmt/format.h>

#include <string_view>

#include "tritondx/task/autotune_configs.h"

namespace tdx {
namespace {

// The launch option a recipe sets, "" for other recipes.
std::string_view option_of(const RecipeId& recipe) {
  if (recipe == "set-num-warps" || recipe == "reduce-num-warps") return "num_warps";
  if (recipe == "set-num-stages") return "num_stages";
  if (recipe == "set-maxnreg") return "maxnreg";
  return {};
}

}  // namespace

void drop_proposals_the_autotuner_tries(std::vector<Finding>& findings, const KernelContext& ctx) {
  if (!ctx.task) return;
  auto space = autotune::configs_of(*ctx.task, ctx.kernel_name(), ctx.launch);
  if (!space || !space->matched) return;
  for (Finding& f : findings) {
    std::erase_if(f.proposals, [&](const RewriteProposal& p) {
      const std::string_view option = option_of(p.recipe);
      if (option.empty() || !p.params.is_object() || !p.params.contains(option) ||
          !p.params[option].is_number_integer())
        return false;
      const int value = p.params[option].get<int>();
      auto tried = space->find(space->with_option(option, value));
      if (!tried) return false;
      f.cause += fmt::format(
          "{}The autotuner already tries {}={} with the other values of the config it compiled (config {} of {}), "
          "so {} is not proposed.",
          f.cause.empty() ? "" : (f.cause.ends_with('.') ? " " : ". "), option, value, *tried + 1, space->configs.size(), p.recipe);
      return true;
    });
  }
}

}  // namespace tdx
