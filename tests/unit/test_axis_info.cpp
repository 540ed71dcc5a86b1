// The axis-info replay agrees with Triton 3.6: for every global load, store and cp.async of
// every fixture kernel (tests/fixtures/triton-3.6.0/*, tests/fixtures/axis_info/*, compiled
// by the real Triton), predicted_vec x element_bits equals the width of the PTX
// instructions that the source map puts on the op's source line; and the culprit the replay
// names for each deliberately slow fixture is the op the fixture was written to show.
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/ir/mlir.h"
#include "tritondx/ir/program.h"
#include "tritondx/ir/ptx.h"
#include "tritondx/ir/source_map.h"

namespace fs = std::filesystem;
using namespace tdx;

namespace {

struct KernelFiles {
  std::string name;  // "axis_info/mask_not_div16"
  fs::path ttir, ttgir, ptx;
};
void PrintTo(const KernelFiles& k, std::ostream* os) { *os << k.name; }

std::vector<KernelFiles> discover() {
  std::vector<KernelFiles> out;
  for (const char* root : {"triton-3.6.0", "axis_info"}) {
    fs::path dir = fs::path(TRITONDX_FIXTURES_DIR) / root;
    if (!fs::exists(dir)) continue;
    for (const auto& sub : fs::directory_iterator(dir)) {
      if (!sub.is_directory()) continue;
      KernelFiles k;
      k.name = std::string(root) + "/" + sub.path().filename().string();
      for (const auto& f : fs::directory_iterator(sub.path())) {
        if (f.path().extension() == ".ttgir") k.ttgir = f.path();
        if (f.path().extension() == ".ttir") k.ttir = f.path();
        if (f.path().extension() == ".ptx") k.ptx = f.path();
      }
      if (!k.ttgir.empty() && !k.ptx.empty()) out.push_back(k);
    }
  }
  std::sort(out.begin(), out.end(), [](const KernelFiles& a, const KernelFiles& b) { return a.name < b.name; });
  return out;
}

MlirModule load_mlir(const fs::path& p, Stage stage) {
  auto text = read_file(p.string(), stage);
  EXPECT_TRUE(text.has_value()) << p;
  auto m = parse_mlir(*text, stage);
  EXPECT_TRUE(m.has_value()) << (m ? std::string() : m.error().to_string());
  return m ? std::move(*m) : MlirModule{};
}

bool ptx_kind(const PtxInstruction& i, const std::string& kind) {
  if (kind == "load") return i.opcode == "ld" && i.state_space == "global";
  if (kind == "store") return i.opcode == "st" && i.state_space == "global";
  // cp.async copies from global memory (cp.async.cg.shared.global); cp.async.commit_group and
  // cp.async.wait_group only track the copies in flight and move nothing.
  if (kind == "async-copy")
    return i.opcode == "cp" && i.has_modifier("async") && !i.has_modifier("bulk") && i.has_modifier("global");
  return false;
}

// Compares the replay's widths with the PTX's, per (source line, kind); returns how many
// lines were compared.
int compare_with_ptx(const std::string& name, const MlirModule& ir, const PtxModule& ptx) {
  Program program;
  program.ptx = ptx;
  program.ttgir = ir;
  std::string source_file;
  for (const MlirOp& op : ir.ops)
    if (op.loc.known() && op.name.starts_with("tt.")) {
      source_file = op.loc.file;
      break;
    }
  SourceMap sm = SourceMap::build(program, source_file);
  AxisInfoAnalysis a = AxisInfoAnalysis::run(ir);
  std::map<std::pair<int, std::string>, std::set<int>> predicted;
  std::map<std::pair<int, std::string>, std::string> why;
  for (const MemoryVectorization& mv : a.memory_ops()) {
    if (mv.kind == "atomic") continue;
    const MlirOp& op = ir.ops[static_cast<size_t>(mv.op_index)];
    if (!op.loc.known()) continue;
    predicted[{op.loc.line, mv.kind}].insert(mv.predicted_vec * mv.element_bits);
    why[{op.loc.line, mv.kind}] += mv.explanation + "\n";
  }
  int compared = 0;
  for (const auto& [key, widths] : predicted) {
    std::set<int> actual;
    for (int idx : sm.at(Stage::Ptx, key.first)) {
      const PtxInstruction& i = program.ptx->instructions[static_cast<size_t>(idx)];
      if (ptx_kind(i, key.second)) actual.insert(i.access_bits());
    }
    if (actual.empty()) continue;  // e.g. a store folded away
    ++compared;
    EXPECT_EQ(actual, widths) << name << " line " << key.first << " " << key.second << ":\n" << why[key];
  }
  return compared;
}

class AxisInfoAgreesWithTriton : public ::testing::TestWithParam<KernelFiles> {};

TEST_P(AxisInfoAgreesWithTriton, TtgirWidthsMatchPtx) {
  const auto& k = GetParam();
  MlirModule ir = load_mlir(k.ttgir, Stage::Ttgir);
  auto text = read_file(k.ptx.string(), Stage::Ptx);
  ASSERT_TRUE(text.has_value());
  auto ptx = parse_ptx(*text);
  ASSERT_TRUE(ptx.has_value()) << ptx.error().to_string();
  EXPECT_GT(compare_with_ptx(k.name, ir, *ptx), 0) << k.name << ": no memory op was compared";
}

// Before Coalesce has run, the replay emulates it (per-thread elements from contiguity,
// alignment and the 128-bit cap, maxed over related ops, capped by elements per thread).
TEST_P(AxisInfoAgreesWithTriton, TtirCoalesceEmulationMatchesPtx) {
  const auto& k = GetParam();
  if (k.ttir.empty()) GTEST_SKIP() << "no TTIR";
  MlirModule ir = load_mlir(k.ttir, Stage::Ttir);
  // Async copies only exist after pipelining: their TTIR loads are compared to cp.async.
  auto text = read_file(k.ptx.string(), Stage::Ptx);
  ASSERT_TRUE(text.has_value());
  auto ptx = parse_ptx(*text);
  ASSERT_TRUE(ptx.has_value());
  bool pipelined = false;
  for (const auto& i : ptx->instructions) pipelined |= i.opcode == "cp" && i.has_modifier("async");
  if (pipelined) GTEST_SKIP() << "pipelined loads become cp.async after TTIR";
  compare_with_ptx(k.name + " (ttir)", ir, *ptx);
}

std::string test_name(const ::testing::TestParamInfo<KernelFiles>& info) {
  std::string s = info.param.name;
  for (auto& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AxisInfoAgreesWithTriton, ::testing::ValuesIn(discover()), test_name);

// ---- the culprit of each deliberately slow fixture

struct Verdict {
  std::string fixture;
  std::string kind;
  int nth = 0;  // the nth memory op of that kind
  int predicted_vec;
  std::string limited_by;
  std::string culprit;  // op name
  std::string root;     // root argument ("" = none expected)
};
void PrintTo(const Verdict& v, std::ostream* os) { *os << v.fixture << " " << v.kind << " #" << v.nth; }

const MemoryVectorization* find_op(const AxisInfoAnalysis& a, const std::string& kind, int nth) {
  int seen = 0;
  for (const auto& mv : a.memory_ops())
    if (mv.kind == kind && seen++ == nth) return &mv;
  return nullptr;
}

class AxisInfoCulprit : public ::testing::TestWithParam<Verdict> {};

TEST_P(AxisInfoCulprit, NamesTheOpThatLostTheProperty) {
  const Verdict& v = GetParam();
  fs::path dir = fs::path(TRITONDX_FIXTURES_DIR) / v.fixture;
  fs::path ttgir;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".ttgir") ttgir = f.path();
  ASSERT_FALSE(ttgir.empty()) << dir;
  MlirModule ir = load_mlir(ttgir, Stage::Ttgir);
  AxisInfoAnalysis a = AxisInfoAnalysis::run(ir);
  const MemoryVectorization* mv = find_op(a, v.kind, v.nth);
  ASSERT_NE(mv, nullptr);
  EXPECT_EQ(mv->predicted_vec, v.predicted_vec) << mv->explanation;
  EXPECT_EQ(mv->limited_by, v.limited_by) << mv->explanation;
  if (!v.culprit.empty()) {
    ASSERT_GE(mv->culprit_op, 0) << mv->explanation;
    EXPECT_EQ(ir.ops[static_cast<size_t>(mv->culprit_op)].name, v.culprit) << mv->explanation;
    EXPECT_NE(mv->explanation.find(v.culprit), std::string::npos) << mv->explanation;
  }
  EXPECT_EQ(mv->root_argument, v.root) << mv->explanation;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, AxisInfoCulprit,
    ::testing::Values(
        Verdict{"triton-3.6.0/vector_add", "load", 0, 1, "mask", "arith.cmpi", "n_elements"},
        Verdict{"triton-3.6.0/vector_add", "store", 0, 1, "mask", "arith.cmpi", "n_elements"},
        Verdict{"axis_info/mask_not_div16", "load", 0, 1, "mask", "arith.cmpi", "n"},
        Verdict{"axis_info/unaligned_ptr", "load", 0, 1, "alignment", "tt.addptr", "x_ptr"},
        Verdict{"axis_info/rem_runtime", "load", 0, 1, "contiguity", "arith.remsi", "n"},
        Verdict{"axis_info/rem_runtime", "store", 0, 4, "none", "", ""},
        Verdict{"axis_info/row_stride", "load", 0, 1, "alignment", "arith.muli", "stride_xm"},
        Verdict{"axis_info/row_stride", "store", 0, 8, "none", "", ""},
        Verdict{"axis_info/inner_stride", "load", 0, 1, "contiguity", "arith.muli", "stride"},
        Verdict{"axis_info/small_block", "load", 0, 1, "layout", "tt.load", ""},
        Verdict{"axis_info/multiple_of_hint", "load", 0, 4, "none", "", ""},
        Verdict{"axis_info/multiple_of_scalar_arg", "load", 0, 1, "mask", "arith.cmpi", "n_padded"},
        Verdict{"axis_info/max_contiguous_hint", "load", 0, 4, "none", "", ""},
        Verdict{"axis_info/fp16_loop", "load", 0, 1, "alignment", "arith.muli", "stride_row"},
        Verdict{"triton-3.6.0/matmul", "async-copy", 0, 8, "none", "", ""}),
    [](const ::testing::TestParamInfo<Verdict>& info) {
      std::string s = info.param.fixture + "_" + info.param.kind + std::to_string(info.param.nth);
      for (auto& c : s)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return s;
    });

// The replay over the largest fixture stays in the millisecond range.
TEST(AxisInfoPerformance, LargeMatmulTtgirIsFast) {
  fs::path dir = fs::path(TRITONDX_FIXTURES_DIR) / "triton-3.6.0" / "large_matmul";
  fs::path ttgir;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".ttgir") ttgir = f.path();
  MlirModule ir = load_mlir(ttgir, Stage::Ttgir);
  const int runs = 20;
  auto t0 = std::chrono::steady_clock::now();
  size_t n = 0;
  for (int i = 0; i < runs; ++i) n += AxisInfoAnalysis::run(ir).memory_ops().size();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / runs;
  EXPECT_GT(n, 0u);
  EXPECT_LT(ms, 50.0) << "replay took " << ms << " ms";
  RecordProperty("replay_ms", std::to_string(ms));
}

}  // namespace
