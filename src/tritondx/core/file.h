// Files: reading a whole one (a diagnostic of the given stage when it cannot be read).
#pragma once

#include <string>

#include "tritondx/core/diagnostic.h"

namespace tdx {

// A path ending in ".gz" is decompressed (large fixtures are kept gzipped).
Expected<std::string> read_file(const std::string& path, Stage stage);

}  // namespace tdx
