// The default stage-file folders: named per task and process, and pruned to the last few
// finished runs, never touching a running process's folder.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "../cli_test_util.h"
#include "tritondx/core/artifacts_dir.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

// The pid of a child that has already exited and been reaped.
pid_t ended_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

fs::path make_run(const fs::path& parent, const std::string& stem, long pid, int minutes_ago) {
  fs::path dir = parent / (stem + "-0badf00d-" + std::to_string(pid));
  fs::create_directories(dir);
  std::ofstream(dir / "k.ttgir") << "module {}\n";
  fs::last_write_time(dir, fs::file_time_type::clock::now() - std::chrono::minutes(minutes_ago));
  return dir;
}

fs::path fresh_parent() {
  return cli_test::fresh_dir("tritondx-artifact-dir-tests", ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

TEST(ArtifactsDir, KeepsTheNewestFinishedRunsAndEveryRunningOne) {
  fs::path parent = fresh_parent();
  pid_t ended = ended_pid();
  fs::path newest = make_run(parent, "softmax", ended, 1);
  fs::path second = make_run(parent, "rmsnorm", ended, 2);
  fs::path third = make_run(parent, "jsd", ended, 3);
  fs::path oldest = make_run(parent, "cumsum", ended, 4);
  fs::path running = make_run(parent, "softmax", ::getppid(), 60);
  fs::path ours = make_run(parent, "rope", ::getpid(), 90);
  fs::path not_a_run = parent / "notes";
  fs::create_directories(not_a_run);

  EXPECT_EQ(prune_finished_artifact_dirs(parent, 2), 2u);
  EXPECT_TRUE(fs::exists(newest));
  EXPECT_TRUE(fs::exists(second));
  EXPECT_FALSE(fs::exists(third));
  EXPECT_FALSE(fs::exists(oldest));
  EXPECT_TRUE(fs::exists(running)) << "the parent test runner is alive";
  EXPECT_TRUE(fs::exists(ours));
  EXPECT_TRUE(fs::exists(not_a_run));
}

TEST(ArtifactsDir, FewerFinishedRunsThanKeptRemovesNothing) {
  fs::path parent = fresh_parent();
  pid_t ended = ended_pid();
  make_run(parent, "softmax", ended, 1);
  EXPECT_EQ(prune_finished_artifact_dirs(parent, kKeptFinishedArtifactDirs), 0u);
  EXPECT_EQ(prune_finished_artifact_dirs(parent / "missing", 0), 0u);
}

TEST(ArtifactsDir, DefaultIsPerTaskAndProcess) {
  std::string dir = default_artifacts_dir("/work/kernels/softmax.py");
  EXPECT_EQ(fs::path(dir).parent_path(), fs::temp_directory_path() / "tritondx-artifacts");
  std::string name = fs::path(dir).filename().string();
  EXPECT_TRUE(name.starts_with("softmax-")) << name;
  EXPECT_TRUE(name.ends_with("-" + std::to_string(::getpid()))) << name;
  EXPECT_NE(dir, default_artifacts_dir("/work/other/softmax.py"));
}

}  // namespace
}  // namespace tdx
