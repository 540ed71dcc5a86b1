// Statement-level helpers for the kernel-body recipes: whole-line edits, re-rendering a range
// of lines with sub-expressions replaced (and re-indented), and the launch call's argument
// bound to a kernel parameter. (The names a node reads or writes: PyModule.)
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/rewrite/recipe.h"

namespace tdx::stmt_util {

// Replaces whole lines [first, last] (1-based, inclusive) with `text` (each line ending in '\n';
// empty deletes them).
TextEdit replace_lines(int first, int last, std::string text);

// Lines [first, last] of the task source with `subs` applied (positions in the source), each
// line's leading `from_indent` replaced by `to_indent` (continuation lines lose the same
// number of leading blanks when they have them). Ends with '\n'.
Expected<std::string> render_lines(const KernelContext& ctx, int first, int last, const std::vector<TextEdit>& subs,
                                   std::string_view from_indent = {}, std::string_view to_indent = {});

// Is the statement alone on its lines (no `a; b`, at most a comment after it), so that deleting
// its lines deletes only it?
bool alone_on_lines(const KernelContext& ctx, const PyNode& stmt);
// Does the subtree contain a Call whose normalized name is one of `names`?
bool contains_call(const PyNode& node, std::initializer_list<std::string_view> names);

// The kernel's parameter names, in order.
std::vector<std::string> kernel_params(const KernelContext& ctx);
// The `kernel[grid](...)` call of the task, or nullptr.
const PyNode* launch_call(const KernelContext& ctx);
// The expression the launch call passes for kernel parameter `param` (positional or keyword).
const PyNode* launch_argument(const KernelContext& ctx, const PyNode& call, std::string_view param);

// Does the module import `triton` under that name?
bool imports_triton(const KernelContext& ctx);

}  // namespace tdx::stmt_util
