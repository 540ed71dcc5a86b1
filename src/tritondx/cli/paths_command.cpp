#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/cli/commands.h"
#include "tritondx/core/install_paths.h"

namespace tdx::cli {

Runner add_paths_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("paths", "Show where this tritondx finds its bridge, Python, targets and docs");
  cmd->add_flag("--json", *json, "As JSON");
  return [json] {
    const BridgeConfig bridge = BridgeConfig::from_environment();
    const nlohmann::json paths = {{"installed", running_installed()},
                                  {"data", data_root().string()},
                                  {"bridge", bridge.python_path},
                                  {"python", bridge.python},
                                  {"targets", targets_dir().string()},
                                  {"docs", (data_root() / "docs").string()}};
    if (*json) {
      std::cout << paths.dump(2) << "\n";
      return 0;
    }
    std::cout << fmt::format("tritondx {}\n", running_installed() ? "installed" : "built in a source checkout");
    for (const char* key : {"data", "bridge", "python", "targets", "docs"})
      std::cout << fmt::format("  {:<8} {}\n", key, paths[key].get<std::string>());
    return 0;
  };
}

}  // namespace tdx::cli
