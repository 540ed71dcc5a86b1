// What a kernel's @triton.autotune / @triton.heuristics wrapping decides, and the edit that gives
// an autotuner one more config. The launch-option and block recipes go through it for wrapped
// kernels: instead of refusing, they add the diagnosed config with their change applied, so the
// autotuner keeps every config it had and picks the new one only where it is faster.
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"
#include "tritondx/rewrite/recipe.h"
#include "tritondx/rewrite/source_edit.h"
#include "tritondx/task/autotune_configs.h"

namespace tdx::autotune_space {

using Config = autotune::Config;

// The kernel's autotuner: its configs, the `configs=` expression of the decorator, and the
// config the capture compiled (the one its launch options and constexprs match).
struct Space {
  std::vector<Config> configs;
  const PyNode* decorator = nullptr;     // the @...autotune(...) Call
  const PyNode* configs_expr = nullptr;  // its configs argument
  size_t diagnosed = 0;
  std::string config_callee = "triton.Config";  // how the module spells triton.Config
};

// The kernel's autotune space; nullopt when it is not autotuned, an error when it is but the
// decorator's configs argument cannot be found in the source.
Expected<std::optional<Space>> of(const KernelContext& ctx, int line_for_errors);

// The names @triton.heuristics computes for the kernel.
std::set<std::string> heuristic_values(const KernelContext& ctx);

// Does the wrapping decide `what` (a constexpr name, or num_warps / num_stages / maxnreg)?
// An autotuner decides the launch options and every kwarg of its configs; heuristics decide
// the names they compute.
bool decides(const KernelContext& ctx, std::string_view what);

// The config as Python source (`triton.Config({"BLOCK": 1024}, num_warps=8, num_stages=2)`).
std::string to_python(const Config& c, const std::string& callee);

// The edit adding `added` to the autotuner's configs, first: inside a literal list, or as
// `[added] + (configs)` around any other expression. First, because without a GPU the capture
// compiles the first config: the re-diagnosis then looks at the config the rewrite added (and
// the interpreter checks it), while on a GPU the autotuner still times every config.
Expected<TextEdit> add_config(const KernelContext& ctx, const Space& space, const Config& added,
                              int line_for_errors);

// The diagnosed config with `change` applied, added to the autotuner: the edits a recipe returns
// for an autotuned kernel. `what` names the change for the refusal when the autotuner already
// has that config.
template <class Change>
Expected<std::vector<TextEdit>> add_variant(const KernelContext& ctx, const Space& space, Change change,
                                            std::string_view what, int line_for_errors) {
  Config c = space.configs.at(space.diagnosed);
  change(c);
  if (std::find(space.configs.begin(), space.configs.end(), c) != space.configs.end())
      return fail(Stage::Rewrite,
                  fmt::format("the autotuner already tries {} with the diagnosed config's other values", what),
                  line_for_errors);
  return std::vector<TextEdit>{TDX_TRY(add_config(ctx, space, c, line_for_errors))};
}

}  // namespace tdx::autotune_space
