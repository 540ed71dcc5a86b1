// Interleaved rounds: the speedup is the median of per-round ratios, its interval a seeded bootstrap.
#include <gtest/gtest.h>

#include "tritondx/measure/interleaved.h"

namespace tdx {
namespace {

TEST(InterleavedSpeedup, MedianOfPerRoundRatiosCancelsDriftCommonToARound) {
  // The card slows down round after round; both versions slow alike, the ratio stays 2.
  std::vector<double> base{2.0, 2.2, 2.4, 2.6, 2.8, 3.0, 3.2};
  std::vector<double> fast{1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6};
  auto s = interleaved_speedup(base, fast);
  EXPECT_EQ(s.rounds, 7);
  EXPECT_DOUBLE_EQ(s.median, 2.0);
  EXPECT_DOUBLE_EQ(s.ci_low, 2.0);
  EXPECT_DOUBLE_EQ(s.ci_high, 2.0);
  EXPECT_TRUE(s.confirmed());
}

TEST(InterleavedSpeedup, NoisyRoundsWidenTheIntervalAndATieIsNotConfirmed) {
  std::vector<double> base{1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00};
  std::vector<double> other{0.90, 1.08, 0.97, 1.05, 0.93, 1.02, 0.99};
  auto s = interleaved_speedup(base, other);
  EXPECT_NEAR(s.median, 1.0 / 0.99, 1e-12);
  EXPECT_LT(s.ci_low, 1.0);
  EXPECT_GT(s.ci_high, 1.05);
  EXPECT_LE(s.ci_low, s.median);
  EXPECT_GE(s.ci_high, s.median);
  EXPECT_FALSE(s.confirmed());
  // Seeded: the same rounds give the same interval.
  auto again = interleaved_speedup(base, other);
  EXPECT_EQ(again.ci_low, s.ci_low);
  EXPECT_EQ(again.ci_high, s.ci_high);
}

TEST(InterleavedSpeedup, AGainUnderFivePercentIsNotAConfirmedWin) {
  std::vector<double> base{1.03, 1.03, 1.03};
  std::vector<double> other{1.0, 1.0, 1.0};
  auto s = interleaved_speedup(base, other);
  EXPECT_GT(s.ci_low, 1.0);
  EXPECT_FALSE(s.confirmed());
  EXPECT_TRUE(s.confirmed(1.02));
}

TEST(InterleavedSpeedup, MismatchedOrMissingRoundsGiveNothing) {
  EXPECT_EQ(interleaved_speedup({}, {}).rounds, 0);
  EXPECT_EQ(interleaved_speedup({1.0, 2.0}, {1.0}).rounds, 0);
  auto j = to_json(interleaved_speedup({2.0, 2.0, 2.0}, {1.0, 1.0, 1.0}));
  EXPECT_EQ(j["rounds"], 3);
  EXPECT_DOUBLE_EQ(j["speedup"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["ci95"][0].get<double>(), 2.0);
  EXPECT_TRUE(j["confirmed"].get<bool>());
}

}  // namespace
}  // namespace tdx
