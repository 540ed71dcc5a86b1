// The L0 kernel view (names, ranges, shapes, masks) and the L0 rules on the example tasks,
// from stored `capture` replies (tests/fixtures/pyast/*.capture.json): no bridge, no GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>

#include "tritondx/ladder/context.h"
#include "tritondx/source/block_index.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/ladder/rule.h"

namespace tdx {
namespace {

using l0::KernelView;

// One example task with everything an L0 context points to.
struct Captured {
  Task task;
  PyModule module;
  LaunchInfo launch;
  TargetDescription target;
  KernelContext ctx;

  explicit Captured(const std::string& name) {
    std::ifstream in(std::string(TRITONDX_FIXTURES_DIR) + "/pyast/" + name + ".capture.json");
    auto j = nlohmann::json::parse(in);
    task = task_from_json(j["task_info"]);
    module = PyModule::from_json(j["task_info"]["module"]);
    launch = launch_from_json(j["launches"][0]);
    if (auto t = load_target("nvidia-h200")) target = *t;
    ctx.task = &task;
    ctx.ast = &module;
    ctx.function = module.function(launch.kernel);
    ctx.launch = &launch;
    ctx.target = &target;
    ctx.tolerance = task.tolerance;
    ctx.min_bytes = j.value("min_bytes", 0LL);
    ctx.flops = j["flops"].is_number() ? j["flops"].get<long long>() : 0;
  }
  Captured(const Captured&) = delete;

  const PyNode* first(std::string_view call, int nth = 0) const {
    auto calls = PyModule::calls(*ctx.function, {call});
    return nth < static_cast<int>(calls.size()) ? calls[static_cast<size_t>(nth)] : nullptr;
  }
};

TEST(L0KernelView, RangesFromTheLaunch) {
  Captured ex("vector_add");
  KernelView view(ex.ctx);
  const PyNode* load = ex.first("tl.load");
  ASSERT_NE(load, nullptr);
  const PyNode* ptr = KernelView::pointer_arg(*load);
  EXPECT_EQ(view.root_pointer(*ptr), "x_ptr");
  EXPECT_EQ(view.pointee_type("x_ptr"), "fp32");
  auto shape = view.shape(*ptr);
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, (std::vector<long long>{1024}));
  // offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE), pid < cdiv(50000003, 1024) = 48829.
  auto bi = l0::decompose_block_index(view, *ptr);
  ASSERT_TRUE(bi);
  EXPECT_EQ(bi->block, 1024);
  EXPECT_EQ(bi->start.lo, 0);
  EXPECT_EQ(bi->start.hi, 48828LL * 1024);
  EXPECT_EQ(bi->blocks(), 48829);
  auto accesses = l0::masked_accesses(view);
  ASSERT_EQ(accesses.size(), 3u);
  const auto& b = accesses[0].bound;
  EXPECT_TRUE(b.upper);
  EXPECT_FALSE(b.always_true());  // the last block is partly masked
  EXPECT_EQ(b.limit_range->lo, 50000003);
  EXPECT_EQ(b.index_range->hi, 48829LL * 1024 - 1);
  auto cov = l0::coverage(*bi, 50000003);
  ASSERT_TRUE(cov);
  EXPECT_LT(cov->masked_fraction(), 1e-4);
  EXPECT_FALSE(view.has_divisibility_16("n_elements"));
  EXPECT_TRUE(view.has_divisibility_16("x_ptr"));
  EXPECT_EQ(view.launch_line(), 24);
}

TEST(L0KernelView, LoopsNamesAndReductions) {
  Captured ex("softmax");
  KernelView view(ex.ctx);
  const PyNode* load = ex.first("tl.load", 1);
  const PyNode* loop = PyModule::enclosing_loop(*load);
  ASSERT_NE(loop, nullptr);
  auto r = view.loop_range(*loop);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 2816);  // range(0, 3000, 256)
  EXPECT_EQ(view.trip_count(*loop), 12);
  EXPECT_EQ(view.root_pointer(*KernelView::pointer_arg(*load)), "in_ptr");
  // `cols` in the second loop resolves to that loop's assignment.
  const PyNode* ptr = KernelView::pointer_arg(*load);
  const PyNode* cols = ptr->child("right");
  ASSERT_NE(cols, nullptr);
  const l0::Definition* d = view.definition(*cols);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->stmt->line, 26);
  EXPECT_EQ(view.definitions("cols").size(), 3u);
  EXPECT_EQ(view.range(*cols)->hi, 2816 + 255);
  // tl.max(x, axis=0) is a scalar; tl.exp(x - row_max) keeps the block's shape.
  const PyNode* mx = ex.first("tl.max");
  EXPECT_EQ(view.shape(*mx), std::vector<long long>{});
  const PyNode* ex0 = ex.first("tl.exp");
  EXPECT_EQ(view.shape(*ex0), (std::vector<long long>{256}));
  EXPECT_EQ(view.launch_values(*loop->child("iter")), "n_cols=3000, BLOCK=256");
}

TEST(L0KernelView, TwoDimensionalTilesAndDerivedProgramIds) {
  Captured ex("matmul");
  KernelView view(ex.ctx);
  const PyNode* dot = ex.first("tl.dot");
  EXPECT_EQ(view.shape(*dot), (std::vector<long long>{64, 64}));
  const PyNode* a = ex.first("tl.load");
  EXPECT_EQ(view.shape(*KernelView::pointer_arg(*a)), (std::vector<long long>{64, 32}));
  EXPECT_EQ(view.root_pointer(*KernelView::pointer_arg(*a)), "a_ptr");  // through `a_ptrs += ...`
  // pid_m = pid // cdiv(N, 64) over 4096 programs: 0..63, so offs_m < 4096 always.
  auto accesses = l0::masked_accesses(view);
  ASSERT_EQ(accesses.size(), 6u);
  for (const auto& acc : accesses) EXPECT_TRUE(acc.bound.always_true()) << view.text(*acc.bound.compare);
  auto tile = l0::largest_tile(view);
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->elements, 64 * 64);  // the store of c
  EXPECT_EQ(tile->rank, 2u);
}

TEST(L0KernelView, PowerOfTwoHelpers) {
  EXPECT_TRUE(l0::is_pow2(1024));
  EXPECT_FALSE(l0::is_pow2(3000));
  EXPECT_EQ(l0::next_pow2(3000), 4096);
  EXPECT_EQ(l0::pow2_floor(3000), 2048);
  EXPECT_EQ(l0::best_chunk(3000, 2048, 0.05), 1024);
  EXPECT_EQ(l0::element_bytes("*bf16"), 2);
}

// Which L0 rules fire on the three drafts, on which lines, and how fast.
std::map<std::string, std::set<int>> run_l0(const Captured& ex, double* seconds) {
  RuleRegistry registry;
  register_l0_rules(registry);
  std::map<std::string, std::set<int>> out;
  auto start = std::chrono::steady_clock::now();
  for (const auto& rule : registry.rules()) {
    FindingSink sink(std::string(rule->id()), rule->level(), ex.ctx.kernel_name());
    rule->check(ex.ctx, sink);
    for (const auto& f : sink.findings()) {
      out[f.rule_id].insert(f.loc.line);
      EXPECT_FALSE(f.evidence.empty()) << f.rule_id;
      EXPECT_FALSE(f.proposals.empty()) << f.rule_id;
    }
  }
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

TEST(L0Examples, VectorAddDraft) {
  Captured ex("vector_add");
  double s = 0;
  auto found = run_l0(ex, &s);
  // n = 50,000,003: no mask is removable, no hint would be true, 1024-element blocks are fine,
  // but the odd bound makes every access scalar.
  EXPECT_EQ(found["l0-mask-blocks-vectorization"], (std::set<int>{14}));
  EXPECT_EQ(found.size(), 1u);
  EXPECT_LT(s, 0.05);
}

TEST(L0Examples, SoftmaxDraft) {
  Captured ex("softmax");
  double s = 0;
  auto found = run_l0(ex, &s);
  EXPECT_EQ(found["l0-multi-pass-reduction"], (std::set<int>{21}));
  EXPECT_EQ(found["l0-exp-instead-of-exp2"], (std::set<int>{28, 33}));
  EXPECT_EQ(found["l0-num-warps-mismatch"], (std::set<int>{39}));  // 256 fp32 over 128 threads
  EXPECT_EQ(found["l0-mask-blocks-vectorization"], (std::set<int>{21}));  // n_cols = 3000
  EXPECT_EQ(found["l0-reduction-in-loop"], (std::set<int>{22, 28}));  // a tl.max / tl.sum per chunk
  EXPECT_EQ(found.size(), 5u);
  EXPECT_LT(s, 0.05);
}

TEST(L0Examples, MatmulDraft) {
  Captured ex("matmul");
  double s = 0;
  auto found = run_l0(ex, &s);
  EXPECT_EQ(found["l0-unneeded-mask"], (std::set<int>{28, 29, 36}));  // 4096 is a multiple of 64 and 32
  EXPECT_EQ(found["l0-ungrouped-tile-order"], (std::set<int>{17}));   // pid_m = pid // num_pid_n: row by row
  EXPECT_EQ(found.size(), 2u);
  EXPECT_LT(s, 0.05);
}

TEST(L0Examples, MultiPassGainIsTrafficRatio) {
  Captured ex("softmax");
  RuleRegistry registry;
  register_l0_rules(registry);
  const Rule* rule = registry.find("l0-multi-pass-reduction");
  ASSERT_NE(rule, nullptr);
  FindingSink sink(std::string(rule->id()), rule->level(), ex.ctx.kernel_name());
  rule->check(ex.ctx, sink);
  ASSERT_EQ(sink.findings().size(), 1u);
  const auto& f = sink.findings()[0];
  ASSERT_TRUE(f.estimated_gain);
  EXPECT_DOUBLE_EQ(*f.estimated_gain, 2.0);  // (3 reads + 1 write) / (1 read + 1 write)
  EXPECT_EQ(f.proposals[0].params["passes"], 3);
}

}  // namespace
}  // namespace tdx
