// `tritondx optimize A.py B.py ... --workers N`: a kernel library, one process per task, workers
// taking the next task from one list, one shared store, the same results as one worker.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include "../cli_test_util.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

using cli_test::read;
using cli_test::run;

std::vector<std::string> library_args(const fs::path& out, const std::string& workers) {
  std::string src = TRITONDX_SOURCE_DIR;
  return {TRITONDX_BINARY, "optimize", src + "/examples/vector_add.py", src + "/examples/softmax.py",
          src + "/examples/matmul.py", "--workers", workers, "--gpu", "off", "--max-candidates", "2",
          "--out", out.string(), "--store", (out / "store.sqlite").string()};
}

TEST(OptimizeMany, TwoWorkersGiveTheResultsOfOneAndShareOneStore) {
  fs::path two = cli_test::fresh_dir("tritondx-optimize-many", "two_workers");
  fs::path one = cli_test::fresh_dir("tritondx-optimize-many", "one_worker");
  auto r2 = run(library_args(two, "2"));
  ASSERT_EQ(r2.exit_code, 0) << r2.out << r2.err;
  auto r1 = run(library_args(one, "1"));
  ASSERT_EQ(r1.exit_code, 0) << r1.out << r1.err;
  EXPECT_NE(r2.out.find("3 tasks, 2 workers (GPUs 0, 1)"), std::string::npos) << r2.out;
  std::set<std::string> workers_seen;
  for (const char* w : {"worker0-gpu0", "worker1-gpu1"})
    if (r2.out.find(w) != std::string::npos) workers_seen.insert(w);
  EXPECT_EQ(workers_seen.size(), 2u) << r2.out;  // both workers took tasks
  for (const char* task : {"vector_add", "softmax", "matmul"}) {
    auto a = nlohmann::json::parse(read(two / task / "report.json"));
    auto b = nlohmann::json::parse(read(one / task / "report.json"));
    ASSERT_EQ(a["candidates"].size(), b["candidates"].size()) << task;
    for (size_t i = 0; i < a["candidates"].size(); ++i) {
      EXPECT_EQ(a["candidates"][i]["recipe"], b["candidates"][i]["recipe"]) << task << " candidate " << i;
      EXPECT_EQ(read(a["candidates"][i]["path"].get<std::string>()), read(b["candidates"][i]["path"].get<std::string>()))
          << task << " candidate " << i;
    }
    EXPECT_TRUE(fs::exists(two / task / "optimize.log")) << task;
  }
  SQLite::Database store((two / "store.sqlite").string());
  EXPECT_EQ(store.execAndGet("SELECT count(*) FROM runs").getInt(), 3);
}

// A task that is not a kernel fails alone: the others finish, the exit code says so, and its
// log names the problem.
TEST(OptimizeMany, ABadTaskFailsAloneWithItsReasonInItsLog) {
  fs::path out = cli_test::fresh_dir("tritondx-optimize-many", "bad_task");
  std::string src = TRITONDX_SOURCE_DIR;
  auto r = run({TRITONDX_BINARY, "optimize", src + "/tests/fixtures/bad_tasks/no_jit_kernel.py",
                src + "/examples/vector_add.py", "--workers", "2", "--gpu", "off", "--max-candidates", "1", "--out",
                out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("1 of 2 tasks failed"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(out / "vector_add" / "report.json")) << r.out;
  EXPECT_NE(read(out / "no_jit_kernel" / "optimize.log").find("defines no @triton.jit kernel"), std::string::npos)
      << read(out / "no_jit_kernel" / "optimize.log");
}

TEST(OptimizeMany, ARecordingBelongsToOneTask) {
  std::string src = TRITONDX_SOURCE_DIR;
  auto r = run({TRITONDX_BINARY, "optimize", src + "/examples/vector_add.py", src + "/examples/softmax.py",
                "--recording", src + "/tests/fixtures", "--gpu", "off"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--recording is one task's GPU recording"), std::string::npos) << r.err;
}

// Without --out a task's folder is its own default: the same task twice would share it.
TEST(OptimizeMany, TheSameTaskTwiceIsRefused) {
  std::string task = std::string(TRITONDX_SOURCE_DIR) + "/examples/vector_add.py";
  auto r = run({TRITONDX_BINARY, "optimize", task, task, "--gpu", "off"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("give each task once"), std::string::npos) << r.err;
}

// `--gpus 0,0` takes one comma list: the task files after it are still the tasks (refused
// here for naming one task twice, before anything runs).
TEST(OptimizeMany, GpusTakesOneListAndLeavesTheTasksAfterIt) {
  std::string task = std::string(TRITONDX_SOURCE_DIR) + "/examples/vector_add.py";
  auto r = run({TRITONDX_BINARY, "optimize", "--gpus", "0,0", task, task, "--gpu", "off"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("give each task once"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tdx
