// Triton's remarks reach the engine with their notes, each at its own location ("operand defined
// here" names the line a pipelining fix belongs on); recordings made before notes had locations
// still load.
#include <gtest/gtest.h>

#include "tritondx/compile/compile.h"
#include "tritondx/ir/program.h"

namespace tdx {
namespace {

TEST(RemarkNotes, KeepTheirLocations) {
  CompiledKernel k;
  k.name = "kernel";
  k.remarks = nlohmann::json::parse(R"([
    {"file": "t.py", "line": 30, "col": 9, "severity": "warning",
     "message": "operation scheduled before its operands. Pipelining will be disabled.",
     "notes": [{"file": "t.py", "line": 24, "col": 13, "message": "operand defined here"}, "see current operation"]}
  ])");
  Program p = load_program(k);
  ASSERT_EQ(p.remarks.size(), 1u);
  const Remark& r = p.remarks[0];
  EXPECT_EQ(r.loc.line, 30);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0].loc.line, 24);
  EXPECT_EQ(r.notes[0].loc.col, 13);
  EXPECT_EQ(r.notes[0].message, "operand defined here");
  EXPECT_EQ(r.notes[1].loc.line, 0);  // an older recording's note: its text alone
  EXPECT_EQ(r.notes[1].message, "see current operation");
}

}  // namespace
}  // namespace tdx
