#include <iostream>
#include <memory>

#include "tritondx/cli/commands.h"
#include "tritondx/ladder/rule.h"

namespace tdx::cli {

Runner add_rules_command(CLI::App& app) {
  auto dump_config = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("rules", "List the diagnosis rules (id, level, description)");
  cmd->add_flag("--dump-config", *dump_config, "Print every rule's options with their values as JSON");
  return [dump_config] {
    RuleRegistry registry;
    register_all_rules(registry);
    if (*dump_config) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& r : registry.rules()) j[std::string(r->id())] = r->options();
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    for (const auto& r : registry.rules()) {
      std::string description(r->description());
      if (auto dot = description.find(". "); dot != std::string::npos) description = description.substr(0, dot + 1);
      std::cout << fmt::format("{:<36} {}  {}\n", r->id(), level_name(r->level()), description);
    }
    return 0;
  };
}

}  // namespace tdx::cli
