#include "tritondx/source/retiling.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace tdx::l0 {

namespace {

constexpr std::array<std::string_view, 23> kCrossLaneCalls = {
    "tl.sum",         "tl.max",         "tl.min",          "tl.argmax",     "tl.argmin",     "tl.reduce",
    "tl.cumsum",      "tl.cumprod",     "tl.associative_scan", "tl.dot",    "tl.sort",       "tl.histogram",
    "tl.xor_sum",     "tl.trans",       "tl.view",         "tl.permute",    "tl.broadcast_to", "tl.expand_dims",
    "tl.atomic_add",  "tl.atomic_max",  "tl.atomic_min",   "tl.atomic_cas", "tl.atomic_xchg"};

}  // namespace

std::optional<RetilingBlocker> retiling_blocker(const PyNode& function) {
  std::optional<RetilingBlocker> flow, call;
  PyModule::walk(function, [&](const PyNode& n) {
    if (!flow && (n.type == "For" || n.type == "While" || n.type == "If" || n.type == "IfExp"))
      flow = RetilingBlocker{n.line, true, fmt::format("a {} statement", n.type)};
    if (!call && n.type == "Call") {
      const std::string name = normalize_triton_name(call_name(n));
      for (auto want : kCrossLaneCalls)
        if (name == want) call = RetilingBlocker{n.line, false, name};
    }
  });
  return flow ? flow : call;
}

std::string describe(const RetilingBlocker& blocker) {
  if (blocker.control_flow)
    return fmt::format("line {}: {} (only straight-line kernels are retiled)", blocker.line, blocker.what);
  return fmt::format("line {}: {}: the kernel reduces, transposes, expands or updates atomically; a second tile "
                     "dimension would change that",
                     blocker.line, blocker.what);
}

RewriteProposal retiling_proposal(const PyNode* function, RecipeId recipe, const std::string& change,
                                  nlohmann::json params) {
  if (auto blocker = function ? retiling_blocker(*function) : std::nullopt)
    return {kAdvice, fmt::format("{} ({} cannot: {})", change, recipe.str(), describe(*blocker)), std::move(params)};
  return {recipe, change, std::move(params)};
}

}  // namespace tdx::l0
