// What a subcommand of the tritondx command line gives main(): the function that runs it, once
// CLI11 has parsed its options. Shared by cli/ and the engine's commands (optimize, bench), so
// that they need not include cli/.
#pragma once

#include <functional>

namespace tdx::cli {

using Runner = std::function<int()>;

// The exit status of every subcommand (README.md, `tritondx --help`).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,    // the job failed: a task that does not load or compile, a wrong kernel, ...
  kExitUsage = 2,     // the command line is wrong: an unknown option, a missing or invalid argument
  kExitInternal = 3,  // a bug in tritondx
};

inline constexpr const char* kExitCodesHelp =
    "Exit status: 0 success; 1 the job failed (a task that does not load or compile, a kernel that disagrees "
    "with its reference, nothing verified, a report that cannot be written, a --fail-on finding); 2 usage error "
    "(an unknown option, a missing or invalid argument); 3 internal error (a bug in tritondx: please report it).";

}  // namespace tdx::cli
