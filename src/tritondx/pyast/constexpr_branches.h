// The lines of a kernel that the launch's constexprs make dead. Triton folds an `if` whose test
// is known at compile time, so the body of `if EVEN_N:` does not exist in a launch with
// EVEN_N=False, nor its else branch with EVEN_N=True: a finding there is about code that never
// runs. Tests evaluated: a constexpr parameter (bool, int or None), `not X`, one comparison of
// integer expressions of constexprs and literals (`N % BLOCK == 0`, `(hd // 2) % (pad_hd // 2) == 0`),
// `X is None` / `X is not None`, `and` / `or` of those. Anything else, and a parameter the kernel
// assigns to, leaves both branches alive.
#pragma once

#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "tritondx/pyast/py_ast.h"

namespace tdx {

// The value of `test` for a launch with these constexprs, when it depends on them alone.
std::optional<bool> constexpr_truth(const PyNode& test, const PyNode& function, const nlohmann::json& constexprs);

// Every line of a statement in a dead branch of an `if` (nested ones included).
std::set<int> constexpr_dead_lines(const PyNode& function, const nlohmann::json& constexprs);

}  // namespace tdx
