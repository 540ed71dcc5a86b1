#include <iostream>
#include <memory>

#include "tritondx/optimize/optimize_command.h"
#include "tritondx/rewrite/recipe.h"

namespace tdx::cli {

Runner add_recipes_command(CLI::App& app) {
  app.add_subcommand("recipes", "List the built-in rewrite recipes (id, description)");
  return [] {
    RecipeRegistry recipes;
    register_builtin_recipes(recipes);
    for (const auto& r : recipes.recipes()) {
      std::string description(r->description());
      if (auto dot = description.find(". "); dot != std::string::npos) description = description.substr(0, dot + 1);
      std::cout << fmt::format("{:<28} {}\n", r->id(), description);
    }
    return 0;
  };
}

}  // namespace tdx::cli
