// What a subcommand of the tritondx command line gives main(): the function that runs it, once
// CLI11 has parsed its options. Shared by cli/ and the engine's commands (optimize, bench), so
// that they need not include cli/.
#pragma once

#include <functional>

namespace tdx::cli {

using Runner = std::function<int()>;

}  // namespace tdx::cli
