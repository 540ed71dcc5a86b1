// The order of a node's rewrite attempts: the recipes its own rewrite enables first, then
// recipes this run measured a gain for, then the untried, then the measured losers; unchanged
// without measurements.
#include <gtest/gtest.h>

#include "tritondx/optimize/attempt_order.h"

namespace tdx {
namespace {

SearchNode node(long long id, long long parent, const std::string& recipe, const std::string& target,
                std::optional<double> ms, const std::string& status = "verified") {
  SearchNode n;
  n.id = id;
  n.parent = parent;
  n.candidate.recipe = recipe;
  if (!target.empty()) n.candidate.targets = {target};
  n.status = status;
  if (ms) {
    n.score.measured = true;
    n.score.median_ms = *ms;
  }
  return n;
}

RewriteAttempt attempt(const std::string& recipe, const std::string& target) {
  return RewriteAttempt{"recipe", recipe, {target}, fail(Stage::Rewrite, "not built in this test"), {}};
}

// attention_fwd_causal on the H200 (2026-12-03): from the original (0.7086 ms) causal-loop-bound
// reached 0.4140, exp-to-exp2 0.6349, set-num-stages 0.9325. Expanding the causal-loop-bound
// node, exp-to-exp2 now goes first and set-num-stages last.
TEST(AttemptOrder, MeasuredWinnersFirstLosersLast) {
  std::vector<SearchNode> nodes{node(148, 0, "original", "", 0.7086),
                                node(151, 148, "causal-loop-bound", "l0-fully-masked-iterations", 0.4140),
                                node(155, 148, "exp-to-exp2", "l0-exp-instead-of-exp2", 0.6349),
                                node(152, 148, "set-num-stages", "l1-bound-class", 0.9325)};
  std::vector<RewriteAttempt> attempts;
  attempts.push_back(attempt("set-num-stages", "l1-bound-class"));
  attempts.push_back(attempt("even-shape-heuristic", "l0-unneeded-mask"));
  attempts.push_back(attempt("exp-to-exp2", "l0-exp-instead-of-exp2"));
  attempts.push_back(attempt("set-num-warps", "l2-replicated-loads"));
  EXPECT_EQ(order_by_measured_gain(attempts, nodes, 0.02), (std::vector<size_t>{2, 1, 3, 0}));
  EXPECT_NEAR(measured_gain(nodes, "exp-to-exp2", "l0-exp-instead-of-exp2"), 0.7086 / 0.6349, 1e-9);
}

TEST(AttemptOrder, SameRecipeForAnotherRuleIsUntried) {
  std::vector<SearchNode> nodes{node(1, 0, "original", "", 1.0), node(2, 1, "set-num-warps", "l1-bound-class", 0.5)};
  std::vector<RewriteAttempt> attempts{attempt("grow-block", "l0-tiny-block"),
                                       attempt("set-num-warps", "l2-replicated-loads")};
  EXPECT_EQ(order_by_measured_gain(attempts, nodes, 0.02), (std::vector<size_t>{0, 1}));
}

TEST(AttemptOrder, WithoutMeasurementsOrRejectedTheOrderStays) {
  std::vector<SearchNode> nodes{node(1, 0, "original", "", std::nullopt),
                                node(2, 1, "exp-to-exp2", "l0-exp-instead-of-exp2", std::nullopt),
                                node(3, 1, "grow-block", "l0-tiny-block", 0.1, "rejected")};
  std::vector<RewriteAttempt> attempts{attempt("set-num-stages", "l1-bound-class"),
                                       attempt("grow-block", "l0-tiny-block"),
                                       attempt("exp-to-exp2", "l0-exp-instead-of-exp2")};
  EXPECT_EQ(order_by_measured_gain(attempts, nodes, 0.02), (std::vector<size_t>{0, 1, 2}));
}

// A gain within the noise margin counts as no gain.
TEST(AttemptOrder, GainBelowTheMarginIsALoser) {
  std::vector<SearchNode> nodes{node(1, 0, "original", "", 1.0),
                                node(2, 1, "hoist-load", "l0-redundant-load", 0.99)};
  std::vector<RewriteAttempt> attempts{attempt("hoist-load", "l0-redundant-load"),
                                       attempt("grow-block", "l0-tiny-block")};
  EXPECT_EQ(order_by_measured_gain(attempts, nodes, 0.02), (std::vector<size_t>{1, 0}));
}

// The recipes the node's own rewrite enables go first, ahead of measured winners.
TEST(AttemptOrder, EnabledRecipesGoFirst) {
  std::vector<SearchNode> nodes{node(1, 0, "original", "", 0.76),
                                node(2, 1, "reduce-num-warps", "l3-vectorization-lost", 0.63),
                                node(3, 1, "split-interleaved-pairs", "l0-interleaved-pair-access", 0.91)};
  std::vector<RewriteAttempt> attempts{attempt("reduce-num-warps", "l3-vectorization-lost"),
                                       attempt("even-shape-heuristic", "l0-unneeded-mask"),
                                       attempt("rows-per-program", "l0-short-row-per-program")};
  EXPECT_EQ(order_by_measured_gain(attempts, nodes, 0.02, {"rows-per-program"}), (std::vector<size_t>{2, 0, 1}));
  EXPECT_EQ(order_by_measured_gain(attempts, nodes, 0.02), (std::vector<size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace tdx
