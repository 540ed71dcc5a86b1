#include "tritondx/core/install_paths.h"

#include <cstdlib>
#include <system_error>

namespace tdx {

namespace fs = std::filesystem;

namespace {

fs::path installed_root() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path share = exe.parent_path().parent_path() / "share";
  return fs::is_directory(share / "targets", ec) ? share : fs::path();
}

}  // namespace

bool running_installed() { return !installed_root().empty(); }

fs::path data_root() {
  if (fs::path root = installed_root(); !root.empty()) return root;
  return TRITONDX_SOURCE_DIR;
}

fs::path targets_dir() {
  if (const char* d = std::getenv("TRITONDX_TARGETS_DIR"); d && *d) return d;
  return data_root() / "targets";
}

}  // namespace tdx
