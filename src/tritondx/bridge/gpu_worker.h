// Worker processes pinned to GPUs, as `bench --workers` and `optimize A.py B.py --workers` start
// them: which GPU each worker gets, and the environment that pins it and makes the workers on one
// GPU time it one at a time (python/tritondx_bridge/gpu_lock.py reads TRITONDX_GPU_LOCK).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tritondx/bridge/subprocess.h"
#include "tritondx/core/diagnostic.h"

namespace tdx {

// One GPU per worker: `gpus` as given (`--gpus 0,0` puts two workers on GPU 0), else
// 0..workers-1; an error when both are given and their counts disagree, or when an item is not
// what CUDA_VISIBLE_DEVICES takes (an index, a GPU-/MIG- UUID).
Expected<std::vector<std::string>> worker_gpus(int workers, const std::vector<std::string>& gpus);

// CUDA_VISIBLE_DEVICES=gpu and the lock `<lock_dir>/gpu<gpu>.lock` that every worker on that GPU
// shares; a timeout long enough for any search.
ProcessOptions pinned_worker_options(const std::string& gpu, const std::filesystem::path& lock_dir);

}  // namespace tdx
