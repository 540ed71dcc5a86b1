#include "tritondx/bench/bench_interleaved.h"

#include <filesystem>
#include <vector>

#include "tritondx/bench/bench_entry.h"
#include "tritondx/measure/interleaved.h"

namespace tdx {

InterleavedKernels interleaved_kernels(const nlohmann::json& result, const std::string& task, const std::string& dir) {
  namespace fs = std::filesystem;
  InterleavedKernels k{task, "", ""};
  if (result.contains("tritondx") && result["tritondx"].is_object() &&
      result["tritondx"].value("optimized_kernel", nlohmann::json()).is_string()) {
    fs::path optimized = fs::path(dir) / result["tritondx"]["optimized_kernel"].get<std::string>();
    if (fs::exists(optimized)) k.tritondx = optimized.string();
  }
  if (fs::path best = fs::path(dir) / "autotune_best.py"; fs::exists(best)) k.autotune_only = best.string();
  return k;
}

nlohmann::json interleaved_part(const Bridge& bridge, const InterleavedKernels& kernels, int rounds) {
  std::vector<std::string> paths{kernels.initial};
  size_t tritondx = 0, autotune = 0;  // index into paths; 0: the initial kernel
  if (!kernels.tritondx.empty()) {
    tritondx = paths.size();
    paths.push_back(kernels.tritondx);
  }
  if (!kernels.autotune_only.empty()) {
    autotune = paths.size();
    paths.push_back(kernels.autotune_only);
  }
  if (paths.size() < 2) return nullptr;
  auto reply = bridge.call("compare", {{"tasks", paths}, {"rounds", rounds}});
  if (!reply) return {{"error", reply.error().diagnostic.to_string()}};
  std::vector<std::vector<double>> ms;
  for (const auto& t : reply->value("tasks", nlohmann::json::array()))
    ms.push_back(t.value("round_ms", std::vector<double>{}));
  if (ms.size() != paths.size()) return {{"error", "the compare verb answered for another number of kernels"}};

  auto part = [&](size_t other) {
    nlohmann::json j = to_json(interleaved_speedup(ms[0], ms[other]));
    j["median_ms"] = median_of(ms[other]);
    j["round_ms"] = ms[other];
    return j;
  };
  nlohmann::json out{{"measured_at", utc_now()},
                     {"rounds", reply->value("rounds", rounds)},
                     {"device", reply->value("device", "")},
                     {"initial_ms", median_of(ms[0])},
                     {"initial_round_ms", ms[0]},
                     {"tritondx", part(tritondx)}};
  if (tritondx == 0) out["tritondx"]["kept_initial"] = true;
  if (autotune != 0) out["autotune_only"] = part(autotune);
  out["tritondx_over_autotune"] = to_json(interleaved_speedup(ms[autotune], ms[tritondx]));
  return out;
}

}  // namespace tdx
