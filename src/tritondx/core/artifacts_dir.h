// Where the stage files of a run go when the user names no folder: a folder per task and
// process under the system temp dir, of which only the last few finished runs are kept.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace tdx {

// How many folders of finished runs default_artifacts_dir leaves in place.
inline constexpr std::size_t kKeptFinishedArtifactDirs = 4;

// <tmp>/tritondx-artifacts/<stem>-<path hash>-<pid>. Prunes the folders of finished runs there
// first (prune_finished_artifact_dirs), so the stage files of repeated runs, a few hundred MB
// for a kernel with pass dumps, do not pile up.
std::string default_artifacts_dir(const std::string& task_path);

// Removes the folders <name>-<pid> under `parent` whose process has ended, all but the `keep`
// most recently written. Folders of running processes, and names without a pid, stay.
// Returns how many were removed.
std::size_t prune_finished_artifact_dirs(const std::filesystem::path& parent, std::size_t keep);

}  // namespace tdx
