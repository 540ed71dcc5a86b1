// Text edits on AST spans, line mapping, and unified diffs that `patch` accepts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tritondx/rewrite/source_edit.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

const std::string kSource =
    "import triton\n"
    "\n"
    "def f(x):\n"
    "    y = x + 1\n"
    "    return y\n";

TEST(SourceEdit, ReplacesASpanAndInsertsLines) {
  std::vector<TextEdit> edits{
      {4, 9, 4, 14, "x * 2"},                         // `x + 1`
      TextEdit::insert_lines(3, "K = 4\n\n"),         // before `def f`
  };
  auto out = apply_edits(kSource, edits);
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(*out, "import triton\n\nK = 4\n\ndef f(x):\n    y = x * 2\n    return y\n");
}

TEST(SourceEdit, RefusesOverlappingAndOutOfRangeEdits) {
  auto overlap = apply_edits(kSource, {{4, 5, 4, 14, "a"}, {4, 9, 4, 10, "b"}});
  ASSERT_FALSE(overlap.has_value());
  EXPECT_NE(overlap.error().message.find("overlap"), std::string::npos);
  EXPECT_EQ(overlap.error().stage, Stage::Rewrite);
  auto outside = apply_edits(kSource, {{40, 1, 40, 2, "a"}});
  ASSERT_FALSE(outside.has_value());
  EXPECT_NE(outside.error().message.find("outside"), std::string::npos);
}

TEST(SourceEdit, IndentationOfALine) {
  EXPECT_EQ(indentation_of(kSource, 4), "    ");
  EXPECT_EQ(indentation_of(kSource, 3), "");
  EXPECT_EQ(indentation_of(kSource, 99), "");
}

TEST(SourceEdit, MapLineFollowsInsertionsAndDeletions) {
  std::string after = "import triton\n\nK = 4\n\ndef f(x):\n    return x + 1\n";
  EXPECT_EQ(map_line(kSource, after, 3), 5);  // def f
  EXPECT_EQ(map_line(kSource, after, 1), 1);
  EXPECT_EQ(map_line(kSource, after, 4), 6);  // deleted `y = ...`: the line that took its place
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The diff is a real unified diff: GNU patch turns `before` into `after` with it.
TEST(SourceEdit, UnifiedDiffAppliesWithPatch) {
  if (std::system("patch --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "GNU patch is not installed";
  std::string before = read(fs::path(TRITONDX_SOURCE_DIR) / "examples" / "softmax.py");
  std::string after = before;
  after.replace(after.find("BLOCK=256"), 9, "BLOCK=1024, num_warps=8");
  after.insert(after.find("def launch"), "def helper():\n    return 1\n\n\n");
  after.erase(after.find("    row_max = -float"), std::string("    row_max = -float(\"inf\")\n").size());
  std::string diff = unified_diff(before, after, "softmax.py");
  EXPECT_EQ(diff.rfind("--- a/softmax.py\n+++ b/softmax.py\n@@ ", 0), 0u) << diff;
  fs::path dir = fs::temp_directory_path() / "tritondx-diff-test";
  fs::create_directories(dir);
  std::ofstream(dir / "softmax.py") << before;
  std::ofstream(dir / "change.diff") << diff;
  std::string cmd = "cd " + dir.string() + " && patch -s -p1 < change.diff";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << diff;
  EXPECT_EQ(read(dir / "softmax.py"), after) << diff;
  EXPECT_TRUE(unified_diff(before, before, "softmax.py").empty());
}

}  // namespace
}  // namespace tdx
