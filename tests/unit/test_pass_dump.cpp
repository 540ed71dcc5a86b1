// Pass-dump splitter: headers, step pairing, location-insensitive change detection.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tritondx/core/file.h"
#include "tritondx/ir/pass_dump.h"

namespace tdx {
namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(TRITONDX_FIXTURES_DIR) + "/" + rel, Stage::PassDump);
  return text ? *text : std::string();
}

// Shaped like Triton 3.6.0 MLIR_ENABLE_DUMP output: the CSE snapshot differs from the
// Canonicalizer one only in #loc numbering and spacing; Coalesce adds a layout.
constexpr std::string_view kDump = R"(compiler chatter before the first header
// -----// IR Dump Before Canonicalizer (canonicalize) ('tt.func' operation: @k) //----- //
#loc = loc("/tmp/k.py":4:0)
module {
  tt.func public @k(%x: !tt.ptr<f32> loc("x"(#loc))) {
    %0 = tt.load %x : !tt.ptr<f32> loc(#loc1)
    tt.return loc(#loc2)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("/tmp/k.py":5:8)
#loc2 = loc("/tmp/k.py":6:4)


// -----// IR Dump Before CSE (cse) ('builtin.module' operation) //----- //
#loc = loc("/tmp/k.py":4:0)
module {
  tt.func public @k(%x: !tt.ptr<f32> loc("x"(#loc))) {
    %0 = tt.load   %x : !tt.ptr<f32> loc(#loc7)
    tt.return loc(#loc8)
  } loc(#loc)
} loc(#loc)
#loc7 = loc("/tmp/k.py":5:8)
#loc8 = loc("/tmp/k.py":6:4)

// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //
module {
  tt.func public @k(%x: !tt.ptr<f32>) {
    %0 = tt.load %x : !tt.ptr<f32> loc(#loc1)
    tt.return
  }
}
// -----// IR Dump After TritonGPUCoalesce Failed (tritongpu-coalesce) ('builtin.module' operation) //----- //
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module {
  tt.func public @k(%x: !tt.ptr<f32>) {
    %0 = tt.load %x : !tt.ptr<f32, #blocked>
    tt.return
  }
}
)";

TEST(PassDumpSplitter, ParsesHeaders) {
  auto d = split_pass_dump(kDump);
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_EQ(d->snapshots.size(), 4u);
  const auto& s0 = d->snapshots[0];
  EXPECT_EQ(s0.pass_name, "Canonicalizer");
  EXPECT_EQ(s0.pass_arg, "canonicalize");
  EXPECT_EQ(s0.anchor, "tt.func");
  EXPECT_TRUE(s0.before);
  EXPECT_FALSE(s0.failed);
  EXPECT_EQ(s0.line, 2);
  EXPECT_TRUE(s0.ir.starts_with("#loc = loc("));
  EXPECT_EQ(d->snapshots[1].anchor, "builtin.module");
  EXPECT_EQ(d->snapshots[1].line, 14);
  const auto& failed = d->snapshots[3];
  EXPECT_EQ(failed.pass_name, "TritonGPUCoalesce");
  EXPECT_EQ(failed.pass_arg, "tritongpu-coalesce");
  EXPECT_FALSE(failed.before);
  EXPECT_TRUE(failed.failed);
  EXPECT_EQ(failed.line, 32);
}

TEST(PassDumpSplitter, PairsEachPassWithTheNextSnapshot) {
  auto d = split_pass_dump(kDump);
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_EQ(d->steps.size(), 3u);  // the "After ... Failed" snapshot closes the Coalesce step
  EXPECT_EQ(d->steps[0].pass_name, "Canonicalizer");
  EXPECT_EQ(d->steps[0].before, 0);
  EXPECT_EQ(d->steps[0].after, 1);
  EXPECT_FALSE(d->steps[0].changed);  // only #loc numbers and spaces differ
  EXPECT_EQ(d->steps[1].pass_name, "CSE");
  EXPECT_FALSE(d->steps[1].changed);  // locations stripped, otherwise the same
  EXPECT_EQ(d->steps[2].pass_arg, "tritongpu-coalesce");
  EXPECT_EQ(d->steps[2].before, 2);
  EXPECT_EQ(d->steps[2].after, 3);
  EXPECT_TRUE(d->steps[2].changed);
}

TEST(PassDumpSplitter, LastPassHasNoAfter) {
  auto d = split_pass_dump(
      "// -----// IR Dump Before CSE (cse) //----- //\nmodule {}\n"
      "// -----// IR Dump Before SymbolDCE (symbol-dce) //----- //\nmodule {}\n");
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_EQ(d->steps.size(), 2u);
  EXPECT_EQ(d->snapshots[0].anchor, "");
  EXPECT_EQ(d->steps[1].pass_name, "SymbolDCE");
  EXPECT_EQ(d->steps[1].after, -1);
  EXPECT_FALSE(d->steps[1].changed);
}

TEST(PassDumpSplitter, StringsAreComparedVerbatim) {
  auto d = split_pass_dump(
      "// -----// IR Dump Before A (a) //----- //\n%0 = \"x  loc(1)\"\n"
      "// -----// IR Dump Before B (b) //----- //\n%0 = \"x loc(1)\"\n");
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_TRUE(d->steps[0].changed);
}

TEST(PassDumpSplitter, NoHeaderIsAnError) {
  auto d = split_pass_dump(fixture("malformed/no_header.passes.txt"));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().stage, Stage::PassDump);
}

TEST(PassDumpSplitter, MalformedHeaderIsAnError) {
  auto d = split_pass_dump(fixture("malformed/bad_header.passes.txt"));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().stage, Stage::PassDump);
  EXPECT_EQ(d.error().line, 5);
}

TEST(PassDumpFixtures, MatmulCoalesceChangesTheIrAndSomePassesDoNot) {
  auto d = split_pass_dump(fixture("triton-3.6.0/matmul/matmul_kernel.passes.txt"));
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->snapshots.front().line, 1);
  bool coalesce_changed = false;
  int unchanged = 0;
  for (const auto& s : d->steps) {
    if (s.pass_name == "TritonGPUCoalesce" && s.changed) coalesce_changed = true;
    unchanged += s.after >= 0 && !s.changed;
    EXPECT_FALSE(s.pass_arg.empty()) << s.pass_name;
  }
  EXPECT_TRUE(coalesce_changed);
  EXPECT_GT(unchanged, 0);
  EXPECT_EQ(d->steps.size(), d->snapshots.size());  // no failures in this dump
}

TEST(PassDumpFixtures, AllFixturesSplit) {
  for (const char* rel : {"vector_add/add_kernel.passes.txt", "softmax/softmax_kernel.passes.txt",
                          "matmul/matmul_kernel.passes.txt", "large_matmul/matmul_bias_gelu_kernel.passes.txt.gz"}) {
    auto d = split_pass_dump(fixture(std::string("triton-3.6.0/") + rel));
    ASSERT_TRUE(d) << rel << ": " << d.error().to_string();
    EXPECT_GT(d->steps.size(), 20u) << rel;
    int changed = 0;
    for (const auto& s : d->steps) changed += s.changed;
    EXPECT_GT(changed, 0) << rel;
    EXPECT_LT(changed, static_cast<int>(d->steps.size())) << rel;
  }
}

}  // namespace
}  // namespace tdx
