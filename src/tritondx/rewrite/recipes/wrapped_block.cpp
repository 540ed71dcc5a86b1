#include "tritondx/rewrite/recipes/wrapped_block.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "tritondx/rewrite/recipes/autotune_space.h"
#include "tritondx/rewrite/recipes/launch_util.h"

namespace tdx::wrapped_block {
namespace {

using block_grid::BlockChange;
using l0::is_pow2;
using l0::KernelView;

// A larger block over an access it indexes without a mask would read past the data.
std::optional<Diagnostic> reads_past_the_data(const KernelView& view, const BlockChange& c) {
  auto unmasked = launch_util::unmasked_block_access(view, c.name);
  if (!unmasked || c.to <= c.from) return std::nullopt;
  return fail(Stage::Rewrite,
              fmt::format("the access at line {} is indexed by {} without a mask: a larger block would read past "
                          "the data",
                          *unmasked, c.name),
              *unmasked)
      .error();
}

// A @triton.heuristics computes the block: a new heuristic right above @triton.jit scales the one
// it computed by to/from (`args["BLOCK"] * 4`), keeping its policy for every other shape.
Expected<std::vector<TextEdit>> heuristic_edits(const KernelContext& ctx, const KernelView& view,
                                                const std::vector<BlockChange>& changes, int line) {
  std::string values;
  for (const auto& c : changes) {
    if (!is_pow2(c.to) || c.to > 65536 || !is_pow2(c.from))
      return fail(Stage::Rewrite, fmt::format("{} -> {} is not a power-of-two rescaling", c.from, c.to), line);
    if (ctx.launch && ctx.launch->int_arg(c.name) != c.from)
      return fail(Stage::Rewrite, fmt::format("the heuristic's {} is not {} for the captured launch", c.name, c.from), line);
    if (auto refusal = reads_past_the_data(view, c)) return std::unexpected(*refusal);
    std::string scaled = c.to > c.from ? fmt::format("args[\"{}\"] * {}", c.name, c.to / c.from)
                                       : fmt::format("max(args[\"{}\"] // {}, 1)", c.name, c.from / c.to);
    values += fmt::format("{}\"{}\": lambda args: {}", values.empty() ? "" : ", ", c.name, scaled);
  }
  return std::vector<TextEdit>{TDX_TRY(launch_util::insert_inner_heuristic(ctx, values, line))};
}

// The block is decided by the kernel's autotuner: add the diagnosed config with the new block
// (the grid already reads it from the config's meta). `computed`: the names heuristics compute.
Expected<std::vector<TextEdit>> autotuned_edits(const KernelContext& ctx, const KernelView& view,
                                                const std::vector<BlockChange>& changes,
                                                const std::set<std::string>& computed, int line) {
  auto tuned = TDX_TRY(autotune_space::of(ctx, line));
  std::string what;
  for (const auto& c : changes) {
    if (computed.contains(c.name))
      return fail(Stage::Rewrite,
                  fmt::format("@triton.heuristics computes {}, the autotuner the tile's other constexprs", c.name), line);
    if (!tuned || !tuned->configs[tuned->diagnosed].kwargs.contains(c.name))
      return fail(Stage::Rewrite,
                  fmt::format("the autotuner's configs set some of the tile's constexprs but not {}", c.name), line);
    if (!is_pow2(c.to) || c.to > 65536) return fail(Stage::Rewrite, fmt::format("{} is not a valid block size", c.to), line);
    if (ctx.launch && ctx.launch->int_arg(c.name) != c.from)
      return fail(Stage::Rewrite, fmt::format("the diagnosed config's {} is not {}", c.name, c.from), line);
    if (auto refusal = reads_past_the_data(view, c)) return std::unexpected(*refusal);
    what += fmt::format("{}{}={}", what.empty() ? "" : ", ", c.name, c.to);
  }
  return autotune_space::add_variant(
      ctx, *tuned,
      [&](autotune_space::Config& config) {
        for (const auto& c : changes) config.kwargs[c.name] = c.to;
      },
      what, line);
}

}  // namespace

bool decided(const KernelContext& ctx, const std::vector<BlockChange>& changes) {
  return std::any_of(changes.begin(), changes.end(),
                     [&](const BlockChange& c) { return autotune_space::decides(ctx, c.name); });
}

Expected<std::vector<TextEdit>> edits(const KernelContext& ctx, const KernelView& view,
                                      const std::vector<BlockChange>& changes, int line) {
  const auto computed = autotune_space::heuristic_values(ctx);
  if (std::all_of(changes.begin(), changes.end(), [&](const BlockChange& c) { return computed.contains(c.name); }))
    return heuristic_edits(ctx, view, changes, line);
  return autotuned_edits(ctx, view, changes, computed, line);
}

}  // namespace tdx::wrapped_block
