// Every way a task can be wrong gets a clear error naming the problem (and the line).
#include <gtest/gtest.h>

#include <filesystem>

#include "run_tritondx.h"

namespace tdx::e2e {
namespace {

struct BadTask {
  const char* file;
  const char* expected;  // substring of stderr
  const char* location;  // "file:line" suffix expected in the diagnostic, or ""
};

class BadTaskTest : public ::testing::TestWithParam<BadTask> {};

TEST_P(BadTaskTest, FailsWithAClearError) {
  const auto& p = GetParam();
  auto r = run_tritondx({"inspect", std::string(TRITONDX_FIXTURES_DIR) + "/bad_tasks/" + p.file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find(p.expected), std::string::npos) << r.err;
  if (*p.location) {
    EXPECT_NE(r.err.find(p.location), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << "a Python traceback leaked: " << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Tasks, BadTaskTest,
    ::testing::Values(
        BadTask{"does_not_exist.py", "task file not found", ""},
        BadTask{"not_a_kernel.txt", "must be a Python file", ""},
        BadTask{"syntax_error.py", "Python syntax error", "syntax_error.py:7:"},
        BadTask{"no_jit_kernel.py", "defines no @triton.jit kernel", ""},
        BadTask{"reference_not_a_function.py", "`reference` is not a function", "reference_not_a_function.py:24"},
        BadTask{"missing_input_maker.py", "no make_inputs(device) function", ""},
        BadTask{"missing_launch.py", "no launch(*inputs) function", ""},
        BadTask{"bad_tolerance.py", "TOLERANCE must be a dict", "bad_tolerance.py:27"},
        BadTask{"bad_mutates.py", "MUTATES names 'y', which launch(x) does not take", "bad_mutates.py:25"},
        BadTask{"import_error.py", "this task refuses to import", "import_error.py:27"},
        BadTask{"launch_error.py", "undefined_block_size", "launch_error.py:15"},
        BadTask{"compile_error.py", "invalid axis 3", "compile_error.py:10:9"}),
    [](const auto& info) {
      std::string name = info.param.file;
      for (auto& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

TEST(BadTaskE2E, CompileErrorShowsTheSourceLine) {
  auto r = run_tritondx({"inspect", std::string(TRITONDX_FIXTURES_DIR) + "/bad_tasks/compile_error.py"});
  EXPECT_NE(r.err.find("y = tl.sum(x, axis=3)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Triton said:"), std::string::npos) << r.err;
}

// optimize names the task's own file and line (not the copy it evaluates), and does not offer
// --resume for a run that failed on its original kernel.
TEST(BadTaskE2E, OptimizeNamesTheTaskAndOffersNoResumeForAFailedOriginal) {
  std::string task = std::string(TRITONDX_FIXTURES_DIR) + "/bad_tasks/compile_error.py";
  std::string out = (std::filesystem::temp_directory_path() / "tritondx-bad-task-optimize").string();
  std::filesystem::remove_all(out);
  auto r = run_tritondx({"optimize", task, "--gpu", "off", "--out", out});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the original kernel cannot be optimized: compile failed: " + task + ":10:9:"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("invalid axis 3"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--resume"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tdx::e2e
