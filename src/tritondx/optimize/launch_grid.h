// A grid over a kernel's launch parameters: block sizes first (a grown 2-D tile also with
// num_warps scaled by its area; reorder-tile's [TILE_ROWS, BLOCK] tile also reshaped), then
// num_warps x num_stages on the best block (16 warps too for a wide tile without tl.dot, 1 warp
// for a reduction over at most 1024 elements), then,
// when that winner changed the tile, the 1-D blocks (BLOCK_K) once more on it; the fastest
// variant that is still correct wins. It is two things:
// - the benchmark's "autotune-only" peer, run on the initial source: what a user gets today
//   without tritondx;
// - the optimizer's last stage ("launch tuning"), run on the best rewrite the search found.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/measure/measurement.h"

namespace tdx {

struct GridVariant {
  std::string stage;        // "blocks" | "warps-stages" | "blocks-again"
  std::string description;  // "BLOCK_SIZE 1024 -> 2048", "num_warps 8, num_stages 3"
  std::string path;         // the variant's task file
  std::optional<Measurement> measurement;
  std::string error;        // why it is not usable (incorrect, failed to run), empty if verified
  double wall_s = 0;        // its time in the sweep, import and compilation included (0: not run)

  bool verified() const { return measurement && measurement->correct && measurement->timing && error.empty(); }
  double median_ms() const { return verified() ? measurement->timing->median_ms : 0; }
};

struct LaunchGrid {
  std::vector<GridVariant> variants;  // every variant built, both stages
  std::vector<std::string> refused;   // grid points the source cannot take, with the recipe's reason
  std::optional<size_t> best;         // the fastest verified variant; none: the initial kernel is fastest
  bool measured = false;              // variants were run on a GPU
  int gpu_evaluations = 0;            // variants run on the GPU
  std::string note;
};

// Builds and (with `gpu`) measures the grid for the task at `task_path`; variants are written
// under `work_dir`. `base_ms` is the median of the task as given (0 when not measured): a
// variant is best only if it beats it. `initial_task`: the frozen copy of the task as the
// optimization run found it; every variant is verified against it too (empty: the task's
// `reference` alone).
Expected<LaunchGrid> launch_grid(const Bridge& bridge, const std::string& task_path, const std::string& work_dir,
                                 double base_ms, bool gpu, const std::string& initial_task = "");

nlohmann::json launch_grid_to_json(const LaunchGrid& a, double base_ms);

}  // namespace tdx
