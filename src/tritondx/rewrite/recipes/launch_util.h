// What the launch-configuration recipes ask about a task's `launch` function: the
// `kernel[grid](...)` call, the argument that passes a parameter, the grid expression, and the
// edits that set a launch keyword or a constexpr value (recipe set A: set-num-warps,
// set-num-stages, loop-num-stages, the block-size recipes).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <set>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipe.h"

namespace tdx::launch_util {

// The one `kernel[grid](...)` call of the diagnosed kernel in the task module. An error when
// there is none (indirect launch), or several (which one the capture used is unknown).
struct LaunchSite {
  const PyNode* call = nullptr;       // the Call
  const PyNode* grid = nullptr;       // the Subscript's slice: the grid expression
  const PyNode* enclosing = nullptr;  // the FunctionDef containing the call (usually `launch`)
  // Set when the kernel is launched through a compiled handle, `h = kernel.warmup(..., grid=...)`
  // then `h[grid](...)` (`call`): the warmup call compiles, and its keywords choose the constexprs
  // and options; the handle's call passes every parameter positionally and takes no keywords.
  const PyNode* warmup = nullptr;
};
// `through_warmup`: a recipe that passes what it adds with pass_new_parameter also accepts a
// launch through a warmup handle.
Expected<LaunchSite> find_launch(const KernelContext& ctx, int line_for_errors, bool through_warmup = false);

// Passes a newly appended parameter `name` (the kernel's last): as a keyword of the call, or on a
// handle launch as a keyword of the warmup call and the last positional argument of the handle's
// call, which must pass every earlier parameter positionally.
Expected<std::vector<TextEdit>> pass_new_parameter(const KernelContext& ctx, const LaunchSite& site,
                                                   const std::string& name, const std::string& value,
                                                   int line_for_errors);

// Refuses kernels wrapped in @triton.autotune / @triton.heuristics (their configs, not the
// launch call, decide the launch options and constexprs).
std::optional<Diagnostic> refuse_wrapped(const KernelContext& ctx, int line_for_errors);

// The line of a tl.load/tl.store without a mask whose pointer is indexed by tl.arange(.., `block`):
// a larger `block` would make it read or write past the data. None when every such access is masked.
std::optional<int> unmasked_block_access(const l0::KernelView& view, const std::string& block);

// The node passing kernel parameter `param` at the call: its keyword value, or the positional
// argument at the parameter's index; nullptr when the call does not pass it.
const PyNode* passed_argument(const KernelContext& ctx, const PyNode& call, const std::string& param);

// Sets keyword `name=value` on a call: replaces the keyword's value, or appends it after the
// last argument.
TextEdit set_keyword(const PyNode& call, const std::string& name, const std::string& value);

// The single `name = <expr>` assignment to a local name in `function` (pyast's).
using tdx::single_assignment;

// The tl.program_id axes the kernel multiplies by the parameter `name` (pid * NAME): the grid
// dimensions that count blocks of it (-1 for a non-constant axis).
std::set<int> scaled_axes(const l0::KernelView& view, const std::string& name);

// Deletes keyword `name=...` from a call, with the comma that separates it.
std::optional<TextEdit> remove_keyword(const PyNode& call, const std::string& name);

// How Triton's language module is spelled in the task ("tl" for `import triton.language as tl`).
std::string tl_prefix(const KernelContext& ctx);

// Appends `name: tl.constexpr` to the kernel's parameters; an error naming it when the list has
// defaults or variadics (a new positional parameter would not go last).
Expected<TextEdit> append_constexpr_param(const KernelContext& ctx, const std::string& name, int line_for_errors);

// The kernel's last positional parameter, after which new ones go; an error naming `declarations`
// when the list has defaults or variadics.
Expected<const PyNode*> last_param_to_append_after(const KernelContext& ctx, const std::string& declarations,
                                                   int line_for_errors);

// Appends parameter declarations (`n, BLOCK: tl.constexpr`) to the kernel's parameters, with the
// same refusal; one edit, so several parameters keep their order.
Expected<TextEdit> append_params(const KernelContext& ctx, const std::string& declarations, int line_for_errors);

// The grid expression: for a name, the value of its single assignment in the launch function.
const PyNode* grid_expression(const LaunchSite& site);

// One dimension of a grid, `dim` of the tuple a `lambda META: (...)` grid returns (an autotuned
// kernel's grid), written in the kernel's terms so the kernel can compute it itself:
// `META["BLOCK_M"]` (or META.BLOCK_M) -> the constexpr BLOCK_M, a launch-local name -> the kernel
// parameter the launch call passes it to, `triton.cdiv` -> tl.cdiv. An error naming the part that
// has no kernel counterpart (a name the call does not pass, a call other than cdiv).
Expected<std::string> lambda_grid_in_kernel_terms(const KernelContext& ctx, const LaunchSite& site, size_t dim,
                                                  int line_for_errors);

// Inserts `@triton.heuristics({<values>})` right above the kernel's @triton.jit (spelled as the
// module spells jit): innermost, so it runs after every other wrapper and sees (and may replace)
// the values an autotuner config or an outer heuristic set. `values`: `"NAME": lambda args: ...`.
Expected<TextEdit> insert_inner_heuristic(const KernelContext& ctx, const std::string& values, int line_for_errors);

// The last line of a kernel's header (the `def ...:` line, which may span several lines).
int def_header_end(const PyNode& function);

// The first integer constant `value` in the launch function (`site.enclosing`) that the recipe
// neither edits nor knows to be unrelated (`skip`), or nullptr: another use of a block's old
// value (a buffer of cdiv(n, OLD) partials) that may be tied to it. A constant assigned to a
// local name whose every read is in a skipped node (`BLOCK = 16` only passed as `BLOCK_N=BLOCK`,
// another parameter) is unrelated as well, and so is one held in a dict, list or tuple assigned
// to such a name (`extra_kargs = {"matrix_instr_nonkdim": 16}` passed as `**extra_kargs`).
const PyNode* other_use_of_value(const LaunchSite& site, long long value,
                                 const std::function<bool(const PyNode&)>& skip);

}  // namespace tdx::launch_util
