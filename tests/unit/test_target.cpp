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

// A measurement is read against the description of the card that made it: the H200 target for
// "NVIDIA H200", the H100's for an H100 (its own ceilings, measured by bench/ceilings.py on that card), and none for a card
// no target names, so no roofline is computed against another card's ceilings.
TEST(Target, AMeasurementIsReadAgainstItsOwnCard) {
  auto same = target_for_measurement(h200(), "NVIDIA H200");
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->name, "nvidia-h200");

  auto h100 = target_for_measurement(h200(), "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100.has_value()) << h100.error().to_string();
  EXPECT_EQ(h100->name, "nvidia-h100");
  EXPECT_EQ(h100->l2_bytes, 52428800);
  ASSERT_TRUE(h100->ceilings.contains("hbm_bytes_per_second"));
  EXPECT_LT(h100->ceilings.at("hbm_bytes_per_second").value, h200().ceilings.at("hbm_bytes_per_second").value);

  auto unknown = target_for_measurement(h200(), "NVIDIA A100-SXM4-80GB");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().to_string().find("names the device \"NVIDIA A100-SXM4-80GB\""), std::string::npos);

  // A target that names no device is taken as the user gave it.
  TargetDescription custom = h200();
  custom.device_names.clear();
  EXPECT_EQ(target_for_measurement(custom, "NVIDIA A100-SXM4-80GB")->name, "nvidia-h200");
  EXPECT_EQ(target_for_measurement(h200(), "")->name, "nvidia-h200");
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
