// Files: reading a whole one (a diagnostic of the given stage when it cannot be read), and where
// the stage files of a task go by default.
#pragma once

#include <string>

#include "tritondx/core/diagnostic.h"

namespace tdx {

// A path ending in ".gz" is decompressed (large fixtures are kept gzipped).
Expected<std::string> read_file(const std::string& path, Stage stage);

// <tmp>/tritondx-artifacts/<stem>-<path hash>-<pid>: per task and per process.
std::string default_artifacts_dir(const std::string& task_path);

}  // namespace tdx
