// The L2 IR-attribution rules on the recorded Triton 3.6.0 output of the examples (no bridge,
// no compile), plus the access-pattern arithmetic they share (strides, sectors, scf.for).
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/ladder/l2_attribution/ir_view.h"
#include "tritondx/ladder/l2_attribution/strides.h"
#include "tritondx/ladder/rule.h"
#include "tritondx/ladder/session.h"

namespace tdx {
namespace {

// One recorded kernel with everything an L2 rule reads.
struct RecordedKernel {
  Program program;
  std::optional<SourceMap> map;
  KernelSummary summary;
  TargetDescription target;
  LaunchInfo launch;
  Task task;
  std::unique_ptr<AxisInfoAnalysis> axis;

  KernelContext context() {
    KernelContext c;
    c.task = &task;
    c.launch = &launch;
    c.program = &program;
    c.source_map = &*map;
    c.summary = &summary;
    c.target = &target;
    if (program.ttir)
      c.axis_info = [this]() -> const AxisInfoAnalysis& {
        if (!axis) axis = std::make_unique<AxisInfoAnalysis>(AxisInfoAnalysis::run(*program.ttir));
        return *axis;
      };
    return c;
  }
};

std::unique_ptr<RecordedKernel> recorded(const std::string& example, const std::string& kernel) {
  const std::string dir = std::string(TRITONDX_FIXTURES_DIR) + "/triton-3.6.0/" + example + "/";
  auto k = std::make_unique<RecordedKernel>();
  std::ifstream cin(dir + "compile.json");
  auto result = compile_result_from_json(nlohmann::json::parse(cin), dir);
  for (auto& c : result.kernels)
    if (c.name == kernel) k->program = load_program(c);
  EXPECT_TRUE(k->program.ttgir.has_value()) << example;
  std::ifstream capture_in(dir + "capture.json");
  auto capture = nlohmann::json::parse(capture_in);
  k->task = task_from_json(capture["task_info"]);
  for (const auto& l : capture["launches"])
    if (l.value("kernel", "") == kernel) k->launch = launch_from_json(l);
  auto target = load_target("nvidia-h200");
  EXPECT_TRUE(target.has_value());
  if (target) k->target = *target;
  k->map = SourceMap::build(k->program, k->task.path.empty() ? example + ".py" : k->task.path);
  k->summary = summarize(k->program, k->target);
  return k;
}

// (rule id, line) of every L2 finding on a recorded kernel.
std::set<std::pair<std::string, int>> l2_findings(RecordedKernel& k) {
  RuleRegistry registry;
  register_l2_rules(registry);
  std::set<std::pair<std::string, int>> out;
  std::vector<RuleFailure> failures;
  auto ctx = k.context();
  for (const auto& rule : registry.rules())
    for (const auto& f : DiagnosisSession::run_rule(*rule, ctx, failures)) {
      EXPECT_FALSE(f.evidence.empty()) << f.rule_id;
      EXPECT_FALSE(f.cause.empty()) << f.rule_id;
      out.insert({f.rule_id, f.loc.line});
    }
  for (const auto& f : failures) ADD_FAILURE() << f.rule_id << " threw: " << f.message;
  return out;
}

using Lines = std::set<std::pair<std::string, int>>;

TEST(L2RulesOnExamples, VectorAddHasNarrowMaskedAccessesOnly) {
  auto k = recorded("vector_add", "add_kernel");
  EXPECT_EQ(l2_findings(*k), (Lines{{"l2-narrow-global-access", 15},
                                    {"l2-narrow-global-access", 16},
                                    {"l2-narrow-global-access", 17}}));
}

TEST(L2RulesOnExamples, SoftmaxHasNarrowAccessesAndThreeUnpipelinedLoops) {
  auto k = recorded("softmax", "softmax_kernel");
  EXPECT_EQ(l2_findings(*k), (Lines{{"l2-narrow-global-access", 21},
                                    {"l2-narrow-global-access", 27},
                                    {"l2-narrow-global-access", 32},
                                    {"l2-narrow-global-access", 33},
                                    {"l2-unpipelined-loop", 19},
                                    {"l2-unpipelined-loop", 25},
                                    {"l2-unpipelined-loop", 30}}));
}

TEST(L2RulesOnExamples, MatmulIsPipelinedOnWgmmaWithAlwaysTrueKMasks) {
  auto k = recorded("matmul", "matmul_kernel");
  // The wgmma's tiles come in through cp.async of pointer tensors: no TMA (line 30, the dot).
  EXPECT_EQ(l2_findings(*k), (Lines{{"l2-excessive-predication", 28},
                                    {"l2-excessive-predication", 29},
                                    {"l2-dot-operands-without-tma", 30}}));
}

TEST(L2Strides, ForArgumentsMapIterArgsToTheirInitValues) {
  MlirOp op;
  op.name = "scf.for";
  op.text = "%acc:2 = scf.for %k = %c0_i32 to %K step %c32_i32 iter_args(%acc_3 = %cst, %p_4 = %ptrs) -> "
            "(tensor<64x64xf32, #mma>, tensor<64x32x!tt.ptr<f16>, #blocked>)  : i32 {";
  auto a = l2::for_arguments(op);
  EXPECT_EQ(a.induction, "%k");
  ASSERT_EQ(a.iter.size(), 2u);
  EXPECT_EQ(a.iter[0], (std::pair<std::string, std::string>{"%acc_3", "%cst"}));
  EXPECT_EQ(a.iter[1], (std::pair<std::string, std::string>{"%p_4", "%ptrs"}));
}

TEST(L2Strides, AColumnWalkTouchesOneSectorPerLane) {
  auto layout = parse_layout(
      "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>");
  ASSERT_TRUE(layout.has_value());
  auto column = l2::warp_sectors(*layout, {512}, l2::Strides{{1024}}, 4);
  EXPECT_EQ(column.sectors, 32);
  EXPECT_EQ(column.useful_bytes, 128);
  auto row = l2::warp_sectors(*layout, {512}, l2::Strides{{1}}, 4);
  EXPECT_EQ(row.sectors, 4);
  EXPECT_DOUBLE_EQ(row.efficiency(), 1.0);
}

TEST(L2Strides, MatmulOperandPointersAreRowMajorFromTheLaunchStrides) {
  auto k = recorded("matmul", "matmul_kernel");
  auto ctx = k->context();
  l2::IrView ir(ctx);
  l2::StrideAnalysis strides(ir);
  int checked = 0;
  for (const auto& op : k->program.ttgir->ops) {
    if (op.name != "ttg.async_copy_global_to_local" || ir.enclosing_loop(op) < 0) continue;
    auto s = strides.of(op.operands[0]);
    ASSERT_EQ(s.per_dim.size(), 2u);
    EXPECT_EQ(s.per_dim[0], 4096) << op.text;  // stride_am / stride_bk of the 4096 x 4096 inputs
    EXPECT_EQ(s.per_dim[1], 1) << op.text;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace tdx
