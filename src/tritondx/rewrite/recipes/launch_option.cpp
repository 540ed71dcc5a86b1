// set-num-warps, set-num-stages: set a launch option keyword on the kernel's launch call.
#include <fmt/format.h>

#include <cstdlib>

#include "tritondx/rewrite/recipes/autotune_space.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

struct OptionSpec {
  std::string_view id;
  std::string_view option;  // the launch keyword and the proposal parameter
  std::string_view description;
  int min, max;
};

constexpr OptionSpec kNumWarps{
    "set-num-warps", "num_warps",
    "Sets num_warps=N on the kernel's launch call in the task (replacing the value it passes, or adding the "
    "keyword when it relies on the default of 4), with N from the finding's proposal. Proposed by "
    "l0-num-warps-mismatch (warps sized to the tile), l2-replicated-loads (fewer warps than the layout "
    "replicates over) and l2-dot-not-wgmma / l3-mma-v3-precondition (a multiple of 4 for wgmma). Refuses "
    "indirect launch calls, or several launch calls of which more than one ran, and values that are not a "
    "power of two between 1 and 32. On an autotuned kernel it adds a config instead: the one the diagnosis "
    "compiled, with num_warps=N (the autotuner keeps every config it had); when a @triton.heuristics computes "
    "num_warps, an innermost heuristic scales its value by N / the launch's.",
    1, 32};

constexpr OptionSpec kNumStages{
    "set-num-stages", "num_stages",
    "Sets num_stages=S on the kernel's launch call (replacing the value it passes, or adding the keyword "
    "when it relies on the default of 3), with S from the finding's proposal. Proposed by "
    "l3-loop-not-pipelined when the launch's num_stages <= 1 keeps the pipeliner off (confirmed by a "
    "what-if compile) or an indirection level needs more stages, and by l1-hot-line-stall and l1-bound-class "
    "(one more stage) when measured warps wait on the pipelined copies. Every loop without its own "
    "tl.range(num_stages=...) follows the launch value. On an autotuned kernel it adds a config instead: "
    "the one the diagnosis compiled, with num_stages=S (the autotuner keeps every config it had); when a "
    "@triton.heuristics computes num_stages, an innermost heuristic shifts its value by S - the launch's. Refuses "
    "indirect launch calls, or several launch calls of which more than one ran, and proposals that name no stage count.",
    1, 8};

constexpr OptionSpec kReduceNumWarps{
    "reduce-num-warps", "num_warps",
    "Lowers num_warps on the kernel's launch call to the value of the finding's proposal, so each thread "
    "owns more contiguous elements of the tile (the coalescing layout spreads a tile over all threads; "
    "fewer threads give each a full 16-byte vector). Proposed by l3-vectorization-lost when a what-if "
    "compile with that num_warps restored the vector width. The same edit as set-num-warps; refuses a "
    "value that is not lower than the launch's, and indirect launch calls, or several launch calls of which more than one ran; on an autotuned "
    "kernel it adds the diagnosed config with the lower num_warps.",
    1, 32};

class LaunchOptionRecipe final : public Recipe {
 public:
  explicit LaunchOptionRecipe(const OptionSpec& spec) : spec_(spec) {}
  std::string_view id() const override { return spec_.id; }
  std::string_view description() const override { return spec_.description; }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;

 private:
  const OptionSpec& spec_;
};

// A @triton.heuristics computes the option from the shapes: an innermost heuristic scales what it
// computed, so the captured launch gets `value` and other shapes keep their relation to it
// (num_warps by the same power of two, num_stages by the same difference).
Expected<std::vector<TextEdit>> heuristic_option(const KernelContext& ctx, const std::string& key, long long value,
                                                 int line) {
  if (!ctx.launch) return fail(Stage::Rewrite, fmt::format("@triton.heuristics computes {}; no captured launch", key), line);
  const long long current = key == "num_warps" ? ctx.launch->num_warps() : ctx.launch->num_stages();
  if (current <= 0 || current == value)
    return fail(Stage::Rewrite, fmt::format("the launch already runs with {}={}", key, current), line);
  std::string scaled;
  if (key == "num_warps" && value > current && value % current == 0)
    scaled = fmt::format("min(32, args[\"num_warps\"] * {})", value / current);
  else if (key == "num_warps" && current % value == 0)
    scaled = fmt::format("max(1, args[\"num_warps\"] // {})", current / value);
  else if (key == "num_stages")
    scaled = fmt::format("max(1, args[\"num_stages\"] {} {})", value > current ? "+" : "-", std::llabs(value - current));
  else
    return fail(Stage::Rewrite, fmt::format("{}={} is not a power-of-two multiple of the launch's {}", key, value, current), line);
  return std::vector<TextEdit>{
      TDX_TRY(launch_util::insert_inner_heuristic(ctx, fmt::format("\"{}\": lambda args: {}", key, scaled), line))};
}

Expected<std::vector<TextEdit>> LaunchOptionRecipe::edits(const RecipeInput& in) const {
  int line = in.finding.loc.line;
  std::string key(spec_.option);
  const auto& params = in.proposal.params;
  if (!params.is_object() || !params.contains(key) || !params[key].is_number_integer())
    return fail(Stage::Rewrite, fmt::format("the proposal names no {} value", key), line);
  long long value = params[key].get<long long>();
  bool pow2 = value > 0 && (value & (value - 1)) == 0;
  if (value < spec_.min || value > spec_.max || (key == "num_warps" && !pow2))
    return fail(Stage::Rewrite, fmt::format("{}={} is not a valid launch value", key, value), line);
  if (spec_.id == "reduce-num-warps" && in.ctx.launch && value >= in.ctx.launch->num_warps())
    return fail(Stage::Rewrite,
                fmt::format("num_warps={} is not fewer than the launch's {}", value, in.ctx.launch->num_warps()), line);
  if (autotune_space::decides(in.ctx, key)) {
    auto tuned = TDX_TRY(autotune_space::of(in.ctx, line));
    if (!tuned) return heuristic_option(in.ctx, key, value, line);
    return autotune_space::add_variant(
        in.ctx, *tuned, [&](autotune_space::Config& c) { autotune::set_option(c, key, int(value)); },
        fmt::format("{}={}", key, value), line);
  }
  auto site = TDX_TRY(launch_util::find_launch(in.ctx, line));
  if (const PyNode* current = keyword(*site.call, key))
    if (auto v = int_constant(*current); v && *v == value)
      return fail(Stage::Rewrite, fmt::format("the launch already passes {}={}", key, value), site.call->line);
  if (in.ctx.launch && in.ctx.launch->options.is_object() && !keyword(*site.call, key)) {
    int current = key == "num_warps" ? in.ctx.launch->num_warps() : in.ctx.launch->num_stages();
    if (current == value)
      return fail(Stage::Rewrite, fmt::format("the launch already runs with {}={} (the default)", key, value),
                  site.call->line);
  }
  return std::vector<TextEdit>{launch_util::set_keyword(*site.call, key, std::to_string(value))};
}

}  // namespace

std::unique_ptr<Recipe> make_set_num_warps_recipe() { return std::make_unique<LaunchOptionRecipe>(kNumWarps); }
std::unique_ptr<Recipe> make_reduce_num_warps_recipe() { return std::make_unique<LaunchOptionRecipe>(kReduceNumWarps); }
std::unique_ptr<Recipe> make_set_num_stages_recipe() { return std::make_unique<LaunchOptionRecipe>(kNumStages); }

}  // namespace tdx
