// What even-shape-heuristic and unmasked-full-blocks share: the statement that holds the masked
// accesses of a line, and `if COND: <those statements unmasked> else: <as they were>`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/source/block_index.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipe.h"

namespace tdx::mask_guard {

// One simple statement (alone on its line) holding the masked tl.load/tl.store calls of a line.
struct MaskedStatement {
  const PyNode* stmt = nullptr;
  std::vector<const PyNode*> memops;
};

Expected<MaskedStatement> masked_statement(const l0::KernelView& view, int line);

// A mask term `index < n` whose index is a block `start + tl.arange(0, BLOCK)` and whose bound n
// is an expression of kernel arguments (`n`, `hd // 2`), or such an expression less a multiple of
// the block (`K - k * BLOCK_K`, whose even part it keeps); BLOCK is a constexpr expression
// (`BLOCK`, `pad_hd // 2`). An error naming the term otherwise.
struct BlockBound {
  l0::MaskBound bound;
  l0::BlockIndex index;
  const PyNode* limit_expr = nullptr;
  const PyNode* block_expr = nullptr;
  std::string limit, block;  // their source text, parenthesized unless atomic
  std::vector<std::string> limit_names, block_names;  // the kernel arguments each reads
  std::optional<long long> limit_value, block_value;  // for the captured launch
  // Both sides read only constexpr arguments: the kernel itself can decide `n % BLOCK == 0`.
  bool constexpr_only = false;
};
Expected<BlockBound> block_bound(const l0::KernelView& view, const PyNode& conjunct, int line);

// Every line of the kernel with a masked tl.load/tl.store, in order.
std::vector<int> masked_lines(const l0::KernelView& view);

// The call without its mask and other arguments.
std::string unmasked_call(const KernelContext& ctx, const PyNode& call);

// Groups of statements in source order: siblings in one body with only simple statements
// between them go into one group (one guard covers them, the statements between copied into
// both branches).
std::vector<std::vector<MaskedStatement>> sibling_groups(std::vector<MaskedStatement> statements);

// `if <condition>: <the group's lines with its accesses unmasked> else: <the lines as they were>`.
Expected<TextEdit> guard(const KernelContext& ctx, const std::vector<MaskedStatement>& group,
                         const std::string& condition);

}  // namespace tdx::mask_guard
