#include <gtest/gtest.h>

#include "tritondx/target/target.h"

namespace tdx {
namespace {

TargetDescription h200() {
  auto t = load_target("nvidia-h200");
  EXPECT_TRUE(t.has_value()) << (t ? "" : t.error().to_string());
  return *t;
}

TEST(Target, LoadsTheH200Description) {
  auto t = h200();
  EXPECT_EQ(t.arch, 90);
  EXPECT_EQ(t.sm_count, 132);
  EXPECT_EQ(t.l2_bytes, 62914560);
  ASSERT_TRUE(t.ceilings.contains("hbm_bytes_per_second"));
  EXPECT_GT(t.ceilings["hbm_bytes_per_second"].value, 1e12);
}

TEST(Target, UnknownTargetIsAnErrorNamingTheFile) {
  auto t = load_target("no-such-gpu");
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().file.find("no-such-gpu.json"), std::string::npos);
}

TEST(Occupancy, FullWhenNothingLimits) {
  auto o = compute_occupancy(h200(), 4, 32, 0);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limiter, "warps");
}

TEST(Occupancy, RegistersLimit) {
  // 128 regs/thread -> 4096 per warp -> 16 warps per SM -> 4 blocks of 4 warps.
  auto o = compute_occupancy(h200(), 4, 128, 0);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.warps_per_sm, 16);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
}

TEST(Occupancy, RegisterCountIsRoundedToTheAllocationUnit) {
  // 26 regs * 32 = 832 -> 1024 per warp -> 64 warps: not a limit.
  auto o = compute_occupancy(h200(), 4, 26, 0);
  EXPECT_EQ(o.blocks_by_registers, 16);
  EXPECT_EQ(o.limiter, "warps");
}

TEST(Occupancy, SharedMemoryLimits) {
  // 100 KB + 1 KB reserved per block -> 2 blocks in 228 KB.
  auto o = compute_occupancy(h200(), 4, 32, 100 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "shared memory");
}

TEST(Occupancy, TooMuchSharedMemoryMeansNoBlockFits) {
  auto o = compute_occupancy(h200(), 4, 32, 240 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.fraction, 0);
}

}  // namespace
}  // namespace tdx
