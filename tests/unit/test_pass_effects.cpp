// Per-pass, per-source-line effects computed from a real Triton 3.6.0 pass dump (the matmul
// example: fp16 64x64x32 tiles, K loop on line 27, loads on lines 28/29, dot on line 30).
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_effects.h"
#include "tritondx/analysis/pass_snapshots.h"

namespace tdx {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const PassDump& matmul_dump() {
  static PassDump dump = [] {
    auto d = split_pass_dump(read_text(std::string(TRITONDX_FIXTURES_DIR) + "/triton-3.6.0/matmul/matmul_kernel.passes.txt"));
    EXPECT_TRUE(d.has_value());
    return d ? std::move(*d) : PassDump{};
  }();
  return dump;
}

const std::string kSource = "/work/main/examples/matmul.py";

const PassEffect* first_effect(const std::vector<PassEffect>& effects, std::string_view pass) {
  for (const auto& e : effects)
    if (e.pass_name == pass) return &e;
  return nullptr;
}

bool has_line(const PassEffect& e, int line) { return std::find(e.lines.begin(), e.lines.end(), line) != e.lines.end(); }

TEST(PassEffects, OneEntryPerStep) {
  auto effects = compute_pass_effects(matmul_dump(), kSource);
  ASSERT_EQ(effects.size(), matmul_dump().steps.size());
  for (size_t i = 0; i < effects.size(); ++i) EXPECT_EQ(effects[i].step, static_cast<int>(i));
}

TEST(PassEffects, CoalesceChangesTheLoadLines) {
  auto effects = compute_pass_effects(matmul_dump(), kSource);
  const PassEffect* coalesce = first_effect(effects, "TritonGPUCoalesce");
  ASSERT_NE(coalesce, nullptr);
  EXPECT_TRUE(coalesce->changed);
  EXPECT_TRUE(coalesce->compared);
  EXPECT_TRUE(has_line(*coalesce, 28)) << "a = tl.load(...)";
  EXPECT_TRUE(has_line(*coalesce, 29)) << "b = tl.load(...)";
  EXPECT_GT(coalesce->ops_added, 0);
}

TEST(PassEffects, PipelineChangesTheKLoop) {
  auto effects = compute_pass_effects(matmul_dump(), kSource);
  const PassEffect* pipeline = first_effect(effects, "TritonGPUPipeline");
  ASSERT_NE(pipeline, nullptr);
  EXPECT_TRUE(pipeline->changed);
  EXPECT_TRUE(has_line(*pipeline, 27)) << "for k in range(0, K, BLOCK_K)";
  EXPECT_TRUE(has_line(*pipeline, 28));
  EXPECT_TRUE(has_line(*pipeline, 29));
}

TEST(PassEffects, AccelerateMatmulChangesTheDotLine) {
  auto effects = compute_pass_effects(matmul_dump(), kSource);
  const PassEffect* accel = first_effect(effects, "TritonGPUAccelerateMatmul");
  ASSERT_NE(accel, nullptr);
  EXPECT_TRUE(has_line(*accel, 30)) << "acc += tl.dot(a, b)";
}

TEST(PassEffects, SomePassesAreNoOps) {
  auto effects = compute_pass_effects(matmul_dump(), kSource);
  const PassEffect* f32 = first_effect(effects, "TritonGPUF32DotTC");
  ASSERT_NE(f32, nullptr);
  EXPECT_FALSE(f32->changed) << "fp16 operands: nothing to split";
  EXPECT_TRUE(f32->lines.empty());
  const PassEffect* plan = first_effect(effects, "TritonGPUPlanCTAPass");
  ASSERT_NE(plan, nullptr);
  EXPECT_FALSE(plan->changed) << "num_ctas = 1";
  int unchanged = 0;
  for (const auto& e : effects) unchanged += !e.changed;
  EXPECT_GT(unchanged, 5);
}

TEST(PassEffects, ChangedStepsOutsideTheTensorPipelineAreNotCompared) {
  auto effects = compute_pass_effects(matmul_dump(), kSource);
  const PassEffect* to_llvm = first_effect(effects, "ConvertTritonGPUToLLVM");
  ASSERT_NE(to_llvm, nullptr);
  EXPECT_TRUE(to_llvm->changed);
  EXPECT_FALSE(to_llvm->compared);
}

TEST(PassEffects, SourceFileFiltersLines) {
  auto effects = compute_pass_effects(matmul_dump(), "/elsewhere/other.py");
  for (const auto& e : effects) EXPECT_TRUE(e.lines.empty()) << e.pass_name;
}

TEST(PassSnapshots, FindsStepsAndParsesModules) {
  const PassDump& dump = matmul_dump();
  int pipeline = find_step(dump, "TritonGPUPipeline");
  ASSERT_GE(pipeline, 0);
  EXPECT_EQ(find_steps(dump, "TritonGPURemoveLayoutConversions").size(), 3u);
  const PassSnapshot* before = snapshot_before(dump, pipeline);
  ASSERT_NE(before, nullptr);
  auto module = parse_snapshot(*before);
  ASSERT_TRUE(module.has_value());
  auto loops = for_loops(*module);
  ASSERT_EQ(loops.size(), 1u);
  auto loop = for_loop(*module, loops[0]);
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->iter_args.size(), 3u);
  EXPECT_GE(loop->yield, 0);
  EXPECT_EQ(module->ops[loops[0]].loc.line, 27);
  EXPECT_EQ(module->ops[loops[0]].int_attribute("tt.scheduled_max_stage"), 2);
  // Ops inside carry the schedule written by TritonGPUScheduleLoops.
  int staged = 0;
  for (int i : loop_body(*module, loops[0])) staged += module->ops[i].attribute("loop.stage") != nullptr;
  EXPECT_GT(staged, 5);
  // dump_line points back into the dump text.
  const MlirOp& f = module->ops[loops[0]];
  EXPECT_GT(dump_line(*before, f), before->line);
}

}  // namespace
}  // namespace tdx
