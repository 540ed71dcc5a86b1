// RecipeId: the id of a built-in recipe that a rule's proposal names, checked when the rule is compiled.
//
// A rule can only propose a recipe that exists: a literal id is checked against kRecipeIds at compile time
// (a consteval constructor, so a typo or a recipe that was never built is a compile error), and an id read
// at run time (a stored finding) goes through RecipeId::parse. A proposal with no recipe is advice: a change
// no built-in recipe makes, shown to the user and given to the LLM rewriter. kRecipeIds equals the
// catalogue (tests/rewrite/test_recipe_catalogue.cpp checks both directions).
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace tdx {

inline constexpr auto kRecipeIds = std::to_array<std::string_view>({
    "exp-to-exp2",          "add-contiguity-hint",     "add-multiple-of-hint",   "autotune-configs",
    "even-shape-heuristic", "grow-block",              "grow-tile",              "loop-num-stages",
    "pipeline-loop",        "reduce-num-warps",        "resize-block",           "set-num-stages",
    "set-num-warps",        "single-pass-reduction",   "dot-input-precision",    "load-other",
    "int32-index-math",     "reuse-loaded-value",      "hoist-load",             "group-program-order",
    "reorder-tile",         "rows-per-program",        "split-reduction",        "k-major-operand",
    "causal-loop-bound",    "peel-causal-diagonal",    "online-softmax",         "fuse-max-argmax",
    "split-interleaved-pairs", "flatten-contiguous-rows", "unmasked-full-blocks", "constexpr-divisor",
    "reduce-then-scan",     "round-by-truncation",     "reciprocal-division",    "bitonic-topk",
    "divisibility-by-construction", "tma-persistent",  "set-maxnreg",            "wgmma-tile",
    "reduce-after-loop",    "sum-in-kernel",
    "split-row",
});

constexpr bool is_recipe_id(std::string_view id) {
  return std::find(kRecipeIds.begin(), kRecipeIds.end(), id) != kRecipeIds.end();
}

class RecipeId {
 public:
  constexpr RecipeId() = default;  // no recipe: the proposal is advice
  // The argument must be one of kRecipeIds; anything else fails to compile ("not a constant expression").
  consteval RecipeId(const char* id) : id_(id) {
    if (!is_recipe_id(id_)) throw "RecipeId: not a built-in recipe id (add the recipe, or make the proposal advice)";
  }
  // An id read at run time; nullopt unless it names a built-in recipe ("" gives the advice id).
  static constexpr std::optional<RecipeId> parse(std::string_view id) {
    if (id.empty()) return RecipeId();
    auto it = std::find(kRecipeIds.begin(), kRecipeIds.end(), id);
    if (it == kRecipeIds.end()) return std::nullopt;
    RecipeId r;
    r.id_ = *it;
    return r;
  }

  constexpr std::string_view str() const { return id_; }
  constexpr bool empty() const { return id_.empty(); }
  constexpr operator std::string_view() const { return id_; }
  explicit operator std::string() const { return std::string(id_); }
  friend constexpr bool operator==(RecipeId a, std::string_view b) { return a.id_ == b; }

 private:
  std::string_view id_;  // points into kRecipeIds (static storage)
};

// The recipe of a proposal that no built-in recipe makes: `{kAdvice, "what to change", params}`.
inline constexpr RecipeId kAdvice{};

}  // namespace tdx

template <>
struct fmt::formatter<tdx::RecipeId> : fmt::formatter<std::string_view> {
  auto format(tdx::RecipeId id, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(id.empty() ? std::string_view("advice") : id.str(), ctx);
  }
};
