// TritonGPU layout attributes, as Triton 3.6.0 prints them for sm_90.
#include <gtest/gtest.h>

#include "tritondx/ir/layout.h"

namespace tdx {
namespace {

using Ints = std::vector<int64_t>;

Layout parse_ok(std::string_view text) {
  auto l = parse_layout(text);
  EXPECT_TRUE(l.has_value()) << (l ? "" : l.error().to_string());
  return l ? *l : Layout{};
}

TEST(Layout, BlockedFromVectorAdd) {
  Layout l = parse_ok(
      "#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], "
      "order = [0]}>");
  EXPECT_EQ(l.kind, LayoutKind::Blocked);
  EXPECT_EQ(l.alias, "#blocked");
  EXPECT_EQ(l.text, "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>");
  EXPECT_EQ(l.size_per_thread, Ints{4});
  EXPECT_EQ(l.threads_per_warp, Ints{32});
  EXPECT_EQ(l.warps_per_cta, Ints{4});
  EXPECT_EQ(l.order, Ints{0});
  EXPECT_TRUE(l.cta_split_num.empty());
}

TEST(Layout, Blocked2DWithoutAlias) {
  Layout l = parse_ok(
      "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>");
  EXPECT_EQ(l.alias, "");
  EXPECT_EQ(l.size_per_thread, (Ints{1, 8}));
  EXPECT_EQ(l.threads_per_warp, (Ints{4, 8}));
  EXPECT_EQ(l.order, (Ints{1, 0}));
}

TEST(Layout, WgmmaNvidiaMma) {
  Layout l = parse_ok(
      "#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>");
  EXPECT_EQ(l.kind, LayoutKind::NvidiaMma);
  EXPECT_EQ(l.version_major, 3);
  EXPECT_EQ(l.version_minor, 0);
  EXPECT_EQ(l.warps_per_cta, (Ints{4, 1}));
  EXPECT_EQ(l.instr_shape, (Ints{16, 64, 16}));
}

TEST(Layout, MmaV2) {
  Layout l = parse_ok(
      "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>");
  EXPECT_EQ(l.version_major, 2);
  EXPECT_EQ(l.instr_shape, (Ints{16, 8}));
}

TEST(Layout, NvmmaShared) {
  Layout l = parse_ok(
      "#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>");
  EXPECT_EQ(l.kind, LayoutKind::NvmmaShared);
  EXPECT_EQ(l.swizzling_byte_width, 128);
  EXPECT_TRUE(l.transposed);
  EXPECT_EQ(l.element_bit_width, 16);
}

TEST(Layout, SwizzledShared) {
  Layout l = parse_ok("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>");
  EXPECT_EQ(l.kind, LayoutKind::SwizzledShared);
  EXPECT_EQ(l.vec, 8);
  EXPECT_EQ(l.per_phase, 1);
  EXPECT_EQ(l.max_phase, 8);
  EXPECT_EQ(l.order, (Ints{1, 0}));
}

TEST(Layout, DotOperandKeepsParentAlias) {
  Layout l = parse_ok("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>");
  EXPECT_EQ(l.kind, LayoutKind::DotOperand);
  EXPECT_EQ(l.op_idx, 0);
  EXPECT_EQ(l.parent, "#mma");
  EXPECT_EQ(l.k_width, 2);
  // An FMA dot (fp32, input_precision="ieee") prints no kWidth.
  Layout fma = parse_ok("#ttg.dot_op<{opIdx = 1, parent = #blocked2}>");
  EXPECT_EQ(fma.op_idx, 1);
  EXPECT_EQ(fma.k_width, 0);
}

TEST(Layout, SliceWithNestedParent) {
  Layout l = parse_ok("#ttg.slice<{dim = 1, parent = #blocked}>");
  EXPECT_EQ(l.kind, LayoutKind::Slice);
  EXPECT_EQ(l.slice_dim, 1);
  EXPECT_EQ(l.parent, "#blocked");
  Layout nested = parse_ok("#ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #mma}>}>");
  EXPECT_EQ(nested.slice_dim, 0);
  EXPECT_EQ(nested.parent, "#ttg.slice<{dim = 1, parent = #mma}>");
}

TEST(Layout, LinearAndOthersKeptAsText) {
  Layout lin = parse_ok(
      "#linear = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "
      "warp = [[32, 0], [64, 0]], block = []}>");
  EXPECT_EQ(lin.kind, LayoutKind::Linear);
  EXPECT_EQ(lin.alias, "#linear");
  EXPECT_NE(lin.text.find("register = [[0, 1], [0, 2]]"), std::string::npos);
  Layout smem = parse_ok("#smem = #ttg.shared_memory");
  EXPECT_EQ(smem.kind, LayoutKind::Other);
  EXPECT_EQ(smem.text, "#ttg.shared_memory");
  Layout mfma = parse_ok("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>");
  EXPECT_EQ(mfma.kind, LayoutKind::Other);
}

TEST(Layout, CgaLayoutWithTwoCtas) {
  // Printed by Triton 3.6.0 for num_ctas=2.
  Layout l = parse_ok(
      "#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
      "order = [1, 0], CGALayout = [[0, 1]]}>");
  EXPECT_EQ(l.cga_layout, (std::vector<Ints>{{0, 1}}));
  EXPECT_EQ(l.cta_split_num, (Ints{1, 2}));
  Layout bcast = parse_ok(
      "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[0, 0]]}>");
  EXPECT_EQ(bcast.cta_split_num, (Ints{1, 1}));
  Layout old = parse_ok(
      "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], "
      "CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = [0]}>");
  EXPECT_EQ(old.ctas_per_cga, Ints{2});
  EXPECT_EQ(old.cta_split_num, Ints{2});
  EXPECT_EQ(old.cta_order, Ints{0});
}

TEST(Layout, KindNames) {
  EXPECT_EQ(layout_kind_name(LayoutKind::Blocked), "blocked");
  EXPECT_EQ(layout_kind_name(LayoutKind::NvidiaMma), "nvidia_mma");
  EXPECT_EQ(layout_kind_name(LayoutKind::Other), "other");
}

TEST(Layout, MalformedLayoutsAreErrors) {
  EXPECT_FALSE(parse_layout("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32]").has_value());
  EXPECT_FALSE(parse_layout("#ttg.blocked<{sizePerThread = [4, x], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>").has_value());
  EXPECT_FALSE(parse_layout("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]}>").has_value());
  EXPECT_FALSE(parse_layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>").has_value());
  EXPECT_FALSE(parse_layout("#ttg.nvidia_mma<{versionMinor = 0}>").has_value());
  EXPECT_FALSE(parse_layout("#ttg.dot_op<{opIdx = 0}>").has_value());
  EXPECT_FALSE(parse_layout("ttg.blocked<{}>").has_value());
  auto err = parse_layout("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]}>");
  ASSERT_FALSE(err.has_value());
  EXPECT_NE(err.error().message.find("order"), std::string::npos) << err.error().message;
}

}  // namespace
}  // namespace tdx
