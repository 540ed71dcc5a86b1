#include "tritondx/core/artifacts_dir.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <functional>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace tdx {

namespace fs = std::filesystem;

namespace {

std::optional<pid_t> pid_suffix(const std::string& name) {
  auto dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 == name.size()) return std::nullopt;
  long pid = 0;
  auto [end, ec] = std::from_chars(name.data() + dash + 1, name.data() + name.size(), pid);
  if (ec != std::errc() || end != name.data() + name.size() || pid <= 0) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool process_ended(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

std::size_t prune_finished_artifact_dirs(const fs::path& parent, std::size_t keep) {
  struct Finished {
    fs::path path;
    fs::file_time_type written;
  };
  std::vector<Finished> finished;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    if (!entry.is_directory(ec)) continue;
    auto pid = pid_suffix(entry.path().filename().string());
    if (!pid || *pid == ::getpid() || !process_ended(*pid)) continue;
    finished.push_back({entry.path(), entry.last_write_time(ec)});
  }
  if (finished.size() <= keep) return 0;
  std::ranges::sort(finished, std::ranges::greater{}, &Finished::written);
  std::size_t removed = 0;
  for (auto it = finished.begin() + static_cast<std::ptrdiff_t>(keep); it != finished.end(); ++it)
    if (fs::remove_all(it->path, ec) > 0) ++removed;
  return removed;
}

std::string default_artifacts_dir(const std::string& task_path) {
  fs::path parent = fs::temp_directory_path() / "tritondx-artifacts";
  prune_finished_artifact_dirs(parent, kKeptFinishedArtifactDirs);
  auto stem = fs::path(task_path).stem().string();
  auto hash = std::hash<std::string>{}(fs::absolute(task_path).string());
  return (parent / fmt::format("{}-{:08x}-{}", stem, hash & 0xffffffffu, static_cast<long>(::getpid()))).string();
}

}  // namespace tdx
