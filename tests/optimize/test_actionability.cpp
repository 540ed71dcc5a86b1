// Actionability: which findings of the expanded candidates that propose a built-in recipe led to
// an evaluated candidate, read from the search's attempts.
#include <gtest/gtest.h>

#include "tritondx/optimize/actionability.h"
#include "tritondx/optimize/search.h"

namespace tdx {
namespace {

Finding finding(const std::string& rule, int line, Level level, std::vector<RewriteProposal> proposals) {
  Finding f;
  f.rule_id = rule;
  f.loc.line = line;
  f.level = level;
  f.proposals = std::move(proposals);
  return f;
}

TEST(Actionability, EachFindingGetsTheOutcomeOfItsProposals) {
  RecipeRegistry recipes;
  register_builtin_recipes(recipes);
  OptimizeResult r;
  SearchNode original;
  original.id = 1;
  original.expanded_level = 1;
  original.findings = {
      finding("l0-tiny-block", 10, Level::L0, {{"grow-block", "", {}}}),
      finding("l0-num-warps-mismatch", 12, Level::L0, {{"set-num-warps", "", {}}}),
      finding("l2-uncoalesced", 14, Level::L2, {{kAdvice, "transpose the layout", {}}}),
      finding("l3-loop-not-pipelined", 16, Level::L3, {{"set-num-stages", "", {}}}),
      finding("l0-unneeded-mask", 18, Level::L0, {{"even-shape-heuristic", "", {}}, {"set-num-warps", "", {}}}),
      finding("l0-exp-instead-of-exp2", 20, Level::L0, {{"exp-to-exp2", "", {}}}),
      finding("l0-no-proposal", 22, Level::L0, {}),
  };
  SearchNode child;  // never expanded: its findings are not counted
  child.id = 2;
  child.parent = 1;
  child.findings = {finding("l0-tiny-block", 10, Level::L0, {{"grow-block", "", {}}})};
  r.nodes = {original, child};
  r.attempts = {
      {1, "l0-tiny-block", 10, "recipe", "grow-block", "evaluated", 2, ""},
      {1, "l0-num-warps-mismatch", 12, "recipe", "set-num-warps", "declined", 0, "the launch already passes num_warps=4"},
      {1, "l0-unneeded-mask", 18, "recipe", "even-shape-heuristic", "declined", 0, "no bound to test"},
      {1, "l0-unneeded-mask", 18, "recipe", "set-num-warps", "duplicate", 0, ""},
      {1, "l0-exp-instead-of-exp2", 20, "recipe", "exp-to-exp2", "budget", 0, "16 candidates evaluated"},
      {1, "l0-tiny-block", 99, "recipe", "grow-block", "declined", 0, "another line's finding"},
  };
  Actionability a = actionability(r, recipes);
  ASSERT_EQ(a.findings.size(), 5u);
  EXPECT_EQ(a.advice_only, 1);
  EXPECT_EQ(a.findings[0].outcome, "evaluated");
  EXPECT_EQ(a.findings[1].outcome, "declined");
  EXPECT_EQ(a.findings[1].declines, std::vector<std::string>{"set-num-warps: the launch already passes num_warps=4"});
  EXPECT_EQ(a.findings[2].outcome, "not-reached");  // l3-loop-not-pipelined: no attempt at its level
  EXPECT_EQ(a.findings[3].outcome, "evaluated");    // one recipe declined, the other made a known source
  EXPECT_EQ(a.findings[4].outcome, "budget");
  auto j = actionability_to_json(a);
  EXPECT_EQ(j["with_recipe"], 5);
  EXPECT_EQ(j["evaluated"], 2);
  EXPECT_EQ(j["declined"], 1);
  EXPECT_EQ(j["not_reached"], 1);
  EXPECT_EQ(j["budget"], 1);
}

}  // namespace
}  // namespace tdx
