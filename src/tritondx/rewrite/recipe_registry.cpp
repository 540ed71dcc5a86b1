#include "tritondx/rewrite/recipe.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tdx {

void RecipeRegistry::add(std::unique_ptr<Recipe> recipe) {
  if (find(recipe->id())) throw std::logic_error(fmt::format("recipe {} registered twice", recipe->id()));
  recipes_.push_back(std::move(recipe));
}

const Recipe* RecipeRegistry::find(std::string_view id) const {
  for (const auto& r : recipes_)
    if (r->id() == id) return r.get();
  return nullptr;
}

}  // namespace tdx
