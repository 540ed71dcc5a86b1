#include "tritondx/bridge/gpu_worker.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace tdx {

Expected<std::vector<std::string>> worker_gpus(int workers, const std::vector<std::string>& gpus) {
  if (!gpus.empty() && workers > 1 && static_cast<int>(gpus.size()) != workers)
    return fail(Stage::Task, fmt::format("--workers {} with {} GPUs in --gpus", workers, gpus.size()));
  for (const auto& g : gpus) {
    // What CUDA_VISIBLE_DEVICES takes: an index, or a GPU's or MIG instance's UUID.
    bool index = !g.empty() && std::all_of(g.begin(), g.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!index && !g.starts_with("GPU-") && !g.starts_with("MIG-"))
      return fail(Stage::Task, fmt::format("--gpus {}: not a GPU index (0, 1, ...) or a GPU-/MIG- UUID, which is "
                                           "what CUDA_VISIBLE_DEVICES takes",
                                           g.empty() ? "(an empty item)" : g));
  }
  if (!gpus.empty()) return gpus;
  std::vector<std::string> out;
  for (int k = 0; k < workers; ++k) out.push_back(std::to_string(k));
  return out;
}

ProcessOptions pinned_worker_options(const std::string& gpu, const std::filesystem::path& lock_dir) {
  ProcessOptions po;
  po.timeout = std::chrono::hours(72);
  po.env["CUDA_VISIBLE_DEVICES"] = gpu;
  po.env["TRITONDX_GPU_LOCK"] = std::filesystem::absolute(lock_dir / fmt::format("gpu{}.lock", gpu)).string();
  return po;
}

}  // namespace tdx
