// Ranking candidates: measured time first, then the static cost model, then the gain the
// remaining findings still promise; progress needs a margin.
#include <gtest/gtest.h>

#include "tritondx/optimize/score.h"

namespace tdx {
namespace {

Score measured(double ms) {
  Score s;
  s.measured = true;
  s.median_ms = ms;
  return s;
}

Score unmeasured(double static_ms, double residual_gain) {
  Score s;
  s.static_seconds = static_ms / 1e3;
  s.residual_gain = residual_gain;
  return s;
}

TEST(Score, MeasuredTimeDecides) {
  EXPECT_TRUE(better(measured(0.10), measured(0.12)));
  EXPECT_FALSE(better(measured(0.12), measured(0.10)));
  EXPECT_TRUE(better(measured(0.50), unmeasured(0.01, 1.0)));  // a measurement beats an estimate
}

TEST(Score, ProgressNeedsTheMargin) {
  EXPECT_TRUE(improves(measured(0.097), measured(0.100), 0.02));
  EXPECT_FALSE(improves(measured(0.099), measured(0.100), 0.02));  // within noise
  EXPECT_FALSE(improves(measured(0.120), measured(0.100), 0.02));
}

TEST(Score, WithoutAGpuTheStaticModelThenTheRemainingFindingsDecide) {
  EXPECT_TRUE(better(unmeasured(0.10, 2.0), unmeasured(0.14, 1.0)));
  EXPECT_TRUE(improves(unmeasured(0.10, 2.0), unmeasured(0.14, 2.0), 0.02));
  // Same estimate: removing a finding with a promised gain is progress; adding one is not.
  EXPECT_TRUE(better(unmeasured(0.14, 1.0), unmeasured(0.14, 2.0)));
  EXPECT_TRUE(improves(unmeasured(0.14, 1.0), unmeasured(0.14, 2.0), 0.02));
  EXPECT_FALSE(improves(unmeasured(0.14, 2.0), unmeasured(0.14, 1.0), 0.02));
  // A costlier estimate never counts as progress, whatever the findings.
  EXPECT_FALSE(improves(unmeasured(0.20, 1.0), unmeasured(0.14, 2.0), 0.02));
}

TEST(Score, RoundTripsThroughJson) {
  Score s = measured(0.25);
  s.p10_ms = 0.24;
  s.p90_ms = 0.27;
  s.reps = 300;
  s.static_seconds = 2e-4;
  s.residual_gain = 1.5;
  s.roofline_fraction = 0.6;
  s.bound = "memory";
  Score t = Score::from_json(s.to_json());
  EXPECT_EQ(t.median_ms, 0.25);
  EXPECT_EQ(t.p90_ms, 0.27);
  EXPECT_EQ(t.reps, 300);
  EXPECT_EQ(t.residual_gain, 1.5);
  EXPECT_EQ(t.bound, "memory");
  EXPECT_TRUE(t.measured);
}

}  // namespace
}  // namespace tdx
