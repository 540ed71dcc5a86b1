// Where tritondx finds what it ships beside its executable: the bridge's Python package, the
// target descriptions, the docs, the examples and the built-in bench suite. An installed engine
// (pip install: <package>/bin/tritondx) finds them in <package>/share/; a build of a source
// checkout finds them in that checkout. TRITONDX_BRIDGE_PATH, TRITONDX_TARGETS_DIR and
// TRITONDX_PYTHON still override each.
#pragma once

#include <filesystem>

namespace tdx {

// <exe dir>/../share when it holds targets/, else the source checkout the binary was built from.
std::filesystem::path data_root();
// Is this an installed engine (data_root() beside the executable), not a checkout's build?
bool running_installed();
// The target descriptions: TRITONDX_TARGETS_DIR, else data_root()/targets.
std::filesystem::path targets_dir();

}  // namespace tdx
