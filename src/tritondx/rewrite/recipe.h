// A recipe: one deterministic source-to-source transformation, keyed by the recipe id that
// findings name in their rewrite proposals and parameterized by the proposal's evidence.
// One recipe per file under recipes/, like the rules (see docs/recipes.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/ladder/context.h"
#include "tritondx/ladder/finding.h"
#include "tritondx/rewrite/source_edit.h"

namespace tdx {

struct RecipeInput {
  const KernelContext& ctx;          // the diagnosed kernel: task source, AST, launch, IR
  const Finding& finding;            // the finding being addressed
  const RewriteProposal& proposal;   // its proposal naming this recipe (params = evidence)
};

class Recipe {
 public:
  virtual ~Recipe() = default;
  virtual std::string_view id() const = 0;           // "exp-to-exp2"; matches RewriteProposal::recipe
  virtual std::string_view description() const = 0;  // one paragraph for `tritondx recipes`
  // The edits that implement the proposal on this task's source (kernel and launch function),
  // or an error (Stage::Rewrite) saying why this source cannot take it.
  virtual Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const = 0;
  // Recipes whose preconditions this rewrite establishes, for a rewrite that may not pay by
  // itself (split-interleaved-pairs makes a row contiguous for rows-per-program): the search
  // expands such a candidate before others and tries these recipes on it first.
  virtual std::vector<std::string_view> enables() const { return {}; }
  // A rewrite whose worth depends on the launch parameters it finds (tma-persistent needs the
  // large tile that launch tuning picks, and sets its own K block and stages for TMA): the search
  // also tries it on the best kernel after launch tuning, when its budget did not reach it there.
  virtual bool after_tuning() const { return false; }
};

class RecipeRegistry {
 public:
  void add(std::unique_ptr<Recipe> recipe);
  const Recipe* find(std::string_view id) const;
  const std::vector<std::unique_ptr<Recipe>>& recipes() const { return recipes_; }

 private:
  std::vector<std::unique_ptr<Recipe>> recipes_;
};

// Every built-in recipe (recipes/module.cpp).
void register_builtin_recipes(RecipeRegistry& registry);

}  // namespace tdx
