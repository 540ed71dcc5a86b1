// SourceMap and the per-line view on real Triton 3.6.0 output: line -> ops in every stage.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tritondx/analysis/kernel_summary.h"
#include "tritondx/inspect/line_view.h"
#include "tritondx/ir/instruction_class.h"
#include "tritondx/ir/source_map.h"

namespace tdx {
namespace {

Program fixture_program(const std::string& task, const std::string& kernel) {
  const std::string dir = std::string(TRITONDX_FIXTURES_DIR) + "/triton-3.6.0/" + task + "/";
  std::ifstream in(dir + "compile.json");
  auto reply = nlohmann::json::parse(in);
  auto result = compile_result_from_json(reply, dir);
  for (auto& k : result.kernels)
    if (k.name == kernel) return load_program(k);
  ADD_FAILURE() << "no kernel " << kernel;
  return {};
}

TEST(SourceMap, VectorAddLoadLineReachesEveryStage) {
  Program p = fixture_program("vector_add", "add_kernel");
  ASSERT_TRUE(p.problems.empty()) << p.problems.front().to_string();
  SourceMap map = SourceMap::build(p, "vector_add.py");
  // Line 15: x = tl.load(x_ptr + offsets, mask=mask)
  for (Stage s : kMappedStages) EXPECT_FALSE(map.at(s, 15).empty()) << stage_name(s);
  bool ttgir_load = false;
  for (int i : map.at(Stage::Ttgir, 15)) ttgir_load |= p.ttgir->ops[static_cast<size_t>(i)].name == "tt.load";
  EXPECT_TRUE(ttgir_load);
  int ptx_loads = 0;
  for (int i : map.at(Stage::Ptx, 15))
    ptx_loads += classify(p.ptx->instructions[static_cast<size_t>(i)]) == InstructionClass::GlobalLoad;
  EXPECT_EQ(ptx_loads, 8);  // 8 elements per thread, 1 wide: n is not a multiple of 16
}

TEST(SourceMap, ReverseLookupAgreesWithForward) {
  Program p = fixture_program("softmax", "softmax_kernel");
  SourceMap map = SourceMap::build(p, "softmax.py");
  for (int line : map.lines())
    for (Stage s : kMappedStages)
      for (int i : map.at(s, line)) {
        auto loc = map.loc_of(s, i);
        ASSERT_TRUE(loc.has_value());
        EXPECT_EQ(loc->line, line);
      }
}

TEST(SourceMap, LocationsInOtherFilesAreLeftOut) {
  // The softmax kernel inlines triton/language/standard.py (tl.max, tl.sum): those ops
  // carry standard.py locations and must not be mapped to lines of softmax.py.
  Program p = fixture_program("softmax", "softmax_kernel");
  SourceMap map = SourceMap::build(p, "softmax.py");
  auto lines = map.lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_LE(lines.back(), 40);  // softmax.py's kernel ends before line 40
  EXPECT_GT(map.unmapped(Stage::Llir), 0);
}

TEST(SourceMap, UnknownStageOrLineIsEmpty) {
  Program p = fixture_program("vector_add", "add_kernel");
  SourceMap map = SourceMap::build(p, "vector_add.py");
  EXPECT_TRUE(map.at(Stage::Ptx, 9999).empty());
  EXPECT_FALSE(map.loc_of(Stage::Ptx, -1).has_value());
}

TEST(KernelSummary, MatmulDotIsWgmmaAndLoopPipelined) {
  Program p = fixture_program("matmul", "matmul_kernel");
  auto target = load_target("nvidia-h200");
  ASSERT_TRUE(target.has_value());
  auto s = summarize(p, *target);
  ASSERT_EQ(s.dots.size(), 1u);
  EXPECT_EQ(s.dots[0].mma, "wgmma");
  EXPECT_EQ(s.dots[0].loc.line, 30);
  ASSERT_EQ(s.loops.size(), 1u);
  EXPECT_TRUE(s.loops[0].pipelined);
  EXPECT_GT(s.loops[0].async_copies, 0);
  EXPECT_GT(s.resources.shared_bytes, 0);
  // The epilogue's #mma -> #blocked conversion survives, outside the loop.
  ASSERT_FALSE(s.conversions.empty());
  EXPECT_FALSE(s.conversions[0].in_loop);
}

TEST(LineView, MatmulDotLineShowsWgmmaInPtx) {
  Program p = fixture_program("matmul", "matmul_kernel");
  SourceMap map = SourceMap::build(p, "matmul.py");
  std::vector<std::string> lines(60, "");
  auto views = build_line_views(p, map, lines);
  auto it = std::find_if(views.begin(), views.end(), [](const LineView& v) { return v.line == 30; });
  ASSERT_NE(it, views.end());
  EXPECT_GT(it->ptx_classes["wgmma"], 0);
}

}  // namespace
}  // namespace tdx
