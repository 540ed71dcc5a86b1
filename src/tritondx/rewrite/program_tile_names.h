// The names the program-tile transformation (rewrite/recipes/program_tile.h, shared by
// reorder-tile, rows-per-program and flatten-contiguous-rows) adds to a kernel, for code outside
// the recipes that must recognise a tiled kernel (the launch grid varies TILE_ROWS).
#pragma once

namespace tdx::program_tile {

inline constexpr const char* kTileRows = "TILE_ROWS";
// The parameter added when no kernel parameter receives the grid's extent along the axis.
inline constexpr const char* kRowBound = "n_grid_rows";

}  // namespace tdx::program_tile
