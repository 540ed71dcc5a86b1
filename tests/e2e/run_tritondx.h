// Runs the built tritondx binary for end-to-end tests.
#pragma once

#include <string>
#include <vector>

#include "tritondx/bridge/subprocess.h"

namespace tdx::e2e {

inline ProcessResult run_tritondx(std::vector<std::string> args) {
  args.insert(args.begin(), TRITONDX_BINARY);
  ProcessOptions options;
  options.timeout = std::chrono::minutes(5);
  return run_process(args, "", options);
}

inline std::string source_path(const std::string& relative) {
  return std::string(TRITONDX_SOURCE_DIR) + "/" + relative;
}

}  // namespace tdx::e2e
