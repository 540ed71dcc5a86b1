// Whether a kernel's programs can take a second tile dimension (several rows per program, a
// reordered or flattened tile) by rewriting its index arithmetic alone: only straight-line,
// elementwise code can. Shared by the recipes that retile and the rules that propose them.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/ladder/finding.h"
#include "tritondx/pyast/py_ast.h"

namespace tdx::l0 {

// What stops a retiling: the kernel's first control-flow statement, or its first call that reduces,
// transposes, expands or updates atomically (a second tile dimension would change what it
// computes).
struct RetilingBlocker {
  int line = 0;
  bool control_flow = false;
  std::string what;  // "a For statement", "tl.sum"
};

std::optional<RetilingBlocker> retiling_blocker(const PyNode& function);

// The blocker in words, for a finding's advice or a recipe's refusal.
std::string describe(const RetilingBlocker& blocker);

// A rule's proposal of a retiling recipe: `recipe` with `change` when the kernel (`function`, null
// if unknown) can be retiled, else the same change as advice naming what blocks it
// ("... (rows-per-program cannot: line 14: tl.sum: ...)").
RewriteProposal retiling_proposal(const PyNode* function, RecipeId recipe, const std::string& change,
                                  nlohmann::json params);

}  // namespace tdx::l0
