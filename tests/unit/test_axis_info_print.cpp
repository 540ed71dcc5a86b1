// Print-style checks of the axis-info lattice, like Triton's test-alignment.mlir: every
// `// CHECK: %v: ...` line of tests/fixtures/axis_info/lattice/*.ttir must equal the line
// AxisInfoAnalysis::print() gives for %v in that function.
#include <filesystem>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/ir/mlir.h"
#include "tritondx/ir/program.h"

namespace fs = std::filesystem;
using namespace tdx;

namespace {

struct Check {
  int line;
  std::string value;
  std::string expected;  // "contiguity = [..], divisibility = [..], ..."
};

std::vector<fs::path> lattice_files() {
  std::vector<fs::path> out;
  fs::path dir = fs::path(TRITONDX_FIXTURES_DIR) / "axis_info" / "lattice";
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".ttir") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

class AxisInfoPrint : public ::testing::TestWithParam<fs::path> {};

TEST_P(AxisInfoPrint, MatchesCheckLines) {
  auto text = read_file(GetParam().string(), Stage::Ttir);
  ASSERT_TRUE(text.has_value());
  // Split off the CHECK comments (kept as blank lines so IR line numbers stay put).
  std::istringstream in(*text);
  std::string line, ir;
  std::vector<Check> checks;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    // A CHECK is a comment line of its own ("  // CHECK: %v: ..."); one anywhere else (after IR,
    // or quoted in prose) is an error rather than a check that silently never runs.
    size_t c = line.find("// CHECK: ");
    if (c != std::string::npos) {
      ASSERT_EQ(line.find_first_not_of(" \t"), c) << "CHECK not on a comment line of its own, line " << n << ": " << line;
      std::string rest = line.substr(c + 10);
      size_t colon = rest.find(": ");
      ASSERT_NE(colon, std::string::npos) << "bad CHECK at line " << n;
      checks.push_back({n, rest.substr(0, colon), rest.substr(colon + 2)});
    }
    size_t comment = line.find("//");
    ir += (comment == std::string::npos ? line : line.substr(0, comment)) + "\n";
  }
  ASSERT_FALSE(checks.empty());
  auto m = parse_mlir(ir, Stage::Ttir);
  ASSERT_TRUE(m.has_value()) << m.error().to_string();
  AxisInfoAnalysis a = AxisInfoAnalysis::run(*m);

  // A CHECK names the value defined nearest before it (or, after a region, inside it);
  // names repeat across functions, so match within the function the CHECK sits in.
  for (const Check& c : checks) {
    const MlirFunction* fn = nullptr;
    for (const auto& f : m->functions) {
      int end_line = f.end_op > 0 && f.end_op <= static_cast<int>(m->ops.size()) ? m->ops[static_cast<size_t>(f.end_op - 1)].line + 2 : 1 << 30;
      if (f.line <= c.line && c.line <= end_line) fn = &f;
    }
    ASSERT_NE(fn, nullptr) << "CHECK at line " << c.line << " is outside every function";
    const AxisInfoAnalysis::Definition* found = nullptr;
    for (const auto& d : a.definitions()) {
      if (d.name != c.value) continue;
      int owner = d.op >= 0 ? d.op : d.region_owner;
      bool in_fn = owner >= 0 ? (owner >= fn->first_op && owner < fn->end_op) : true;
      if (owner < 0) {  // a function argument: find it in this function
        in_fn = false;
        for (const auto& arg : fn->arguments) in_fn |= arg.name == d.name;
      }
      if (in_fn) found = &d;
    }
    ASSERT_NE(found, nullptr) << c.value << " (CHECK at line " << c.line << ") has no lattice";
    EXPECT_EQ(format_axis_info(found->info), c.expected) << c.value << " (CHECK at line " << c.line << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Lattice, AxisInfoPrint, ::testing::ValuesIn(lattice_files()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string s = info.param.stem().string();
                           for (auto& c : s)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

// Malformed IR is a Diagnostic with the IR line, not a crash.
TEST(AxisInfoPrintErrors, MalformedIrReportsItsLine) {
  auto m = parse_mlir("module {\n  tt.func @f() {\n    %0 = arith.addi %a, : i32 (((\n  }\n}\n", Stage::Ttir);
  ASSERT_FALSE(m.has_value());
  EXPECT_GT(m.error().line, 0);
}

}  // namespace
