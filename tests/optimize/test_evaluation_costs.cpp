#include <gtest/gtest.h>

#include "tritondx/optimize/evaluation_costs.h"

namespace tdx {
namespace {

// matmul_bf16_square on the H200: the original took 34 s with its profile, candidates 23 s.
EvaluationCosts bf16_square() { return {34, {24, 22, 23}}; }

TEST(EvaluationCosts, ProfileAffordedWhileABudgetForItAndOneCandidateIsLeft) {
  auto c = bf16_square();
  EXPECT_DOUBLE_EQ(c.mean_candidate(), 23);
  EXPECT_TRUE(c.affords_profile(100, 150));   // 100 + 11 + 23 = 134
  EXPECT_TRUE(c.affords_profile(116, 150));   // exactly 150
  EXPECT_FALSE(c.affords_profile(128, 150));  // where the H200 run profiled and then stopped
}

TEST(EvaluationCosts, UnknownCostsNeverSkipTheProfile) {
  EXPECT_TRUE(EvaluationCosts{}.affords_profile(149, 150));
  EXPECT_TRUE((EvaluationCosts{34, {}}).affords_profile(149, 150));
  EXPECT_TRUE((EvaluationCosts{0, {23}}).affords_profile(100, 150));  // a resumed run: no original timed
}

TEST(EvaluationCosts, AnOriginalCheaperThanItsCandidatesCostsNoProfile) {
  EXPECT_TRUE((EvaluationCosts{10, {20}}).affords_profile(130, 150));
  EXPECT_FALSE((EvaluationCosts{10, {20}}).affords_profile(131, 150));
}

}  // namespace
}  // namespace tdx
