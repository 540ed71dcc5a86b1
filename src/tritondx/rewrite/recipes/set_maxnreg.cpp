// set-maxnreg: sets maxnreg=R on the kernel's launch call (or removes it), the per-thread register
// budget ptxas allocates against, with R from the finding's proposal.
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/autotune_space.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

// ptxas accepts .maxnreg from 24 (the floor it allocates for any kernel on sm_90) to 255.
constexpr long long kMinRegisters = 24, kMaxRegisters = 255;

class SetMaxnregRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "set-maxnreg"; }
  std::string_view description() const override {
    return "Sets maxnreg=R on the kernel's launch call (replacing the value it passes, or adding the keyword), "
           "the per-thread register budget ptxas allocates against (Triton's CUDA option, the PTX .maxnreg "
           "directive), with R from the finding's proposal; a proposal with maxnreg null removes the keyword, "
           "so ptxas may use up to 255 registers. Proposed by l1-occupancy-limiter (registers limit the blocks "
           "per SM: the budget that fits one more block) and l2-register-spills (a maxnreg cap makes ptxas "
           "spill: lift it). On an autotuned kernel it adds the diagnosed config with that "
           "maxnreg (or none) to the configs instead. Refuses indirect launch calls, or several launch calls of which more than one ran, values outside 24..255, and a removal when the launch passes no maxnreg.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> SetMaxnregRecipe::edits(const RecipeInput& in) const {
  int line = in.finding.loc.line;
  const auto& params = in.proposal.params;
  if (!params.is_object() || !params.contains("maxnreg") ||
      !(params["maxnreg"].is_null() || params["maxnreg"].is_number_integer()))
    return fail(Stage::Rewrite, "the proposal names no maxnreg value (an integer, or null to remove it)", line);
  if (autotune_space::decides(in.ctx, "maxnreg")) {
    auto tuned = TDX_TRY(autotune_space::of(in.ctx, line));
    if (!tuned) return fail(Stage::Rewrite, "@triton.heuristics computes maxnreg", line);
    std::optional<int> cap;
    if (!params["maxnreg"].is_null()) cap = params["maxnreg"].get<int>();
    if (cap && (*cap < kMinRegisters || *cap > kMaxRegisters))
      return fail(Stage::Rewrite, fmt::format("maxnreg={} is outside the {}..{} ptxas accepts", *cap, kMinRegisters,
                                              kMaxRegisters),
                  line);
    return autotune_space::add_variant(
        in.ctx, *tuned, [&](autotune_space::Config& c) { c.maxnreg = cap; },
        cap ? fmt::format("maxnreg={}", *cap) : std::string("no maxnreg"), line);
  }
  auto site = TDX_TRY(launch_util::find_launch(in.ctx, line));
  const PyNode* current = keyword(*site.call, "maxnreg");
  if (params["maxnreg"].is_null()) {
    if (!current)
      return fail(Stage::Rewrite, "the launch passes no maxnreg: there is no register cap to remove", site.call->line);
    auto removal = launch_util::remove_keyword(*site.call, "maxnreg");
    if (!removal) return fail(Stage::Rewrite, "cannot delete the maxnreg keyword of the launch call", site.call->line);
    return std::vector<TextEdit>{*removal};
  }
  long long value = params["maxnreg"].get<long long>();
  if (value < kMinRegisters || value > kMaxRegisters)
    return fail(Stage::Rewrite, fmt::format("maxnreg={} is outside the {}..{} ptxas accepts", value, kMinRegisters,
                                            kMaxRegisters),
                line);
  if (current)
    if (auto v = int_constant(*current); v && *v == value)
      return fail(Stage::Rewrite, fmt::format("the launch already passes maxnreg={}", value), site.call->line);
  return std::vector<TextEdit>{launch_util::set_keyword(*site.call, "maxnreg", std::to_string(value))};
}

}  // namespace

std::unique_ptr<Recipe> make_set_maxnreg_recipe() { return std::make_unique<SetMaxnregRecipe>(); }

}  // namespace tdx
