// Helpers the recipes share: finding the nodes a finding points at, and module-level edits.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/rewrite/recipe.h"

namespace tdx::recipe_util {

// Calls (by normalized dotted name, e.g. "tl.exp") inside the kernel's FunctionDef on `line`.
std::vector<const PyNode*> kernel_calls_on_line(const KernelContext& ctx, std::initializer_list<std::string_view> names,
                                                int line);

// The for loop of the kernel's FunctionDef that starts on `line`, or nullptr.
const PyNode* kernel_loop_on_line(const KernelContext& ctx, int line);

// The source text of a node.
std::string text(const KernelContext& ctx, const PyNode& node);
// Source text without blanks, tabs and newlines, for comparing two spellings of one expression.
std::string squash(std::string s);
// The node's source text, in parentheses unless it is atomic (a name, constant, call, attribute
// or subscript), for putting it inside a larger expression.
std::string parenthesized(const KernelContext& ctx, const PyNode& node);
// The node's text with every Name node for which `replacement` returns a value replaced by it
// (each in parentheses unless atomic), e.g. `hd // 2` -> `args["hd"] // 2`; nullopt when the
// node spans several lines.
std::optional<std::string> with_names_replaced(
    const KernelContext& ctx, const PyNode& node,
    const std::function<std::optional<std::string>(const std::string&)>& replacement);
// The terms of a sum `a + b + c` (any nesting of Add), in order; the node itself if it is no sum.
std::vector<const PyNode*> sum_terms(const PyNode& expr);
// Is the node the name `id`?
bool is_name(const PyNode* node, std::string_view id);
// The name a plain `name = ...` statement assigns, else "".
std::string assigned_name(const PyNode& stmt);
// The constant axis of a tl.program_id(axis) / tl.num_programs(axis) call, else -1.
int program_id_axis(const PyNode& call);

// An edit that defines `NAME = tl.constexpr(value)` at module level after the last top-level
// import, unless the module already binds NAME (then nullopt).
std::optional<TextEdit> define_module_constexpr(const KernelContext& ctx, const std::string& name,
                                                const std::string& value);

}  // namespace tdx::recipe_util
