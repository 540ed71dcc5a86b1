// The transformation reorder-tile and rows-per-program share: a scalar program id
// `x = tl.program_id(axis)` becomes a column of TILE_ROWS consecutive ids, so every expression
// that uses it broadcasts to a [TILE_ROWS, ...] tile, every load and store is masked to the
// grid's old extent, and that grid dimension shrinks by TILE_ROWS.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/program_tile_names.h"
#include "tritondx/rewrite/recipe.h"

namespace tdx::program_tile {

// Refuses kernels that are not straight-line and elementwise: a loop, a branch, a reduction, a
// transpose, an expand_dims or an atomic would see new shapes. (A reshape to a written shape
// is retiled by edits(), tl.split and tl.join need nothing.)
std::optional<Diagnostic> refuse_non_elementwise(const l0::KernelView& view, int line);

struct Request {
  std::string row;                   // the name `x` of `x = tl.program_id(axis)`
  const PyNode* row_value = nullptr;  // the tl.program_id call
  int axis = 0;
  long long tile = 0;                 // TILE_ROWS
  bool may_add_bound = false;         // when no parameter receives the extent, add kRowBound
};

Expected<std::vector<TextEdit>> edits(const KernelContext& ctx, const Request& request, int line);

}  // namespace tdx::program_tile
