// The exit-status table of `tritondx --help` and README.md holds: 0 success, 1 the job failed,
// 2 usage error (CLI11's own codes mapped), and diagnose's --fail-on.
#include <gtest/gtest.h>

#include "run_tritondx.h"

namespace tdx::e2e {
namespace {

TEST(ExitCodes, HelpSucceedsAndPrintsTheTable) {
  auto r = run_tritondx({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Exit status: 0 success; 1 the job failed"), std::string::npos) << r.out;
  EXPECT_EQ(run_tritondx({"diagnose", "--help"}).exit_code, 0);
  EXPECT_EQ(run_tritondx({"--version"}).exit_code, 0);
}

TEST(ExitCodes, UsageErrorsAreTwo) {
  auto unknown = run_tritondx({"diagnose", source_path("examples/softmax.py"), "--no-such-option"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_EQ(run_tritondx({}).exit_code, 2);                     // no subcommand
  EXPECT_EQ(run_tritondx({"diagnose"}).exit_code, 2);           // no task
  EXPECT_EQ(run_tritondx({"nonsense-verb"}).exit_code, 2);
  auto range = run_tritondx({"diagnose", source_path("examples/softmax.py"), "--max-level", "7"});
  EXPECT_EQ(range.exit_code, 2) << range.err;
  auto fail_on = run_tritondx({"diagnose", source_path("examples/softmax.py"), "--fail-on", "l9-nope"});
  EXPECT_EQ(fail_on.exit_code, 2);
  EXPECT_NE(fail_on.err.find("l9-nope is neither a level (L0-L3) nor a rule id"), std::string::npos) << fail_on.err;
}

TEST(ExitCodes, AJobThatFailsIsOne) {
  auto missing = run_tritondx({"diagnose", source_path("examples/no_such_task.py")});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
}

// --fail-on selects findings by level or rule id: softmax.py's L0 findings fail the command (and
// are listed), a rule that does not fire on it does not.
TEST(ExitCodes, FailOnAFindingIsOne) {
  const std::string task = source_path("examples/softmax.py");
  auto level = run_tritondx({"diagnose", task, "--max-level", "0", "--fail-on", "L0"});
  EXPECT_EQ(level.exit_code, 1) << level.err;
  EXPECT_NE(level.err.find("--fail-on:"), std::string::npos) << level.err;
  EXPECT_NE(level.err.find("l0-multi-pass-reduction at line 21"), std::string::npos) << level.err;
  EXPECT_NE(level.out.find("L0 findings"), std::string::npos);  // the report is still written

  auto rule = run_tritondx({"diagnose", task, "--max-level", "0", "--fail-on", "l0-multi-pass-reduction"});
  EXPECT_EQ(rule.exit_code, 1) << rule.err;
  auto silent = run_tritondx({"diagnose", task, "--max-level", "0", "--fail-on", "l0-tiny-block", "--fail-on", "L3"});
  EXPECT_EQ(silent.exit_code, 0) << silent.err;
}

}  // namespace
}  // namespace tdx::e2e
