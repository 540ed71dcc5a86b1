// `tritondx bench --confirm`: only the interleaved rounds, for entries already measured.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "tritondx/bench/bench_interleaved.h"
#include "tritondx/bench/bench_run.h"
#include "tritondx/bench/bench_summary.h"
#include "tritondx/measure/visible_gpu.h"

namespace tdx {

namespace fs = std::filesystem;

int run_confirm(const BenchRun& run) {
  const auto& o = run.options;
  if (o.gpu == GpuMode::Off || o.rounds < 1) {
    std::cerr << "error: --confirm times kernels in interleaved rounds: it needs a GPU and --rounds of at least 1\n";
    return 2;
  }
  Bridge bridge(BridgeConfig::from_environment());
  auto visible = visible_gpu(bridge);
  if (!visible) {
    std::cerr << "error: " << visible.error().to_string() << "\n";
    return 1;
  }
  if (visible->empty()) {
    std::cerr << "error: --confirm: no GPU is visible\n";
    return 1;
  }
  int added = 0, failed = 0;
  for (const auto& e : run.selected) {
    auto result = stored_result(o, e, true);
    if (!result || result->value("status", "") != "ok") {
      std::cout << fmt::format("{}: no measured result to confirm\n", e.id);
      continue;
    }
    if (card_of(*result) != *visible) {
      std::cout << fmt::format("{}: measured on {}, and the GPU here is {}: not confirmed here\n", e.id,
                               card_of(*result), *visible);
      continue;
    }
    if (result->contains("interleaved") && !o.force) {
      std::cout << fmt::format("{}: already has its interleaved rounds (--force measures them again)\n", e.id);
      continue;
    }
    const std::string dir = entry_dir(o, e);
    auto part = interleaved_part(bridge, interleaved_kernels(*result, e.path, dir), o.rounds);
    if (part.is_null()) {
      std::cout << fmt::format("{}: tritondx and autotune-only both kept the initial kernel: nothing to compare\n", e.id);
      continue;
    }
    if (part.contains("error")) {
      ++failed;
      std::cerr << fmt::format("{}: the interleaved rounds failed: {}\n", e.id, part["error"].get<std::string>());
      continue;
    }
    (*result)["interleaved"] = part;
    std::ofstream(fs::path(dir) / "entry.json") << result->dump(2) << "\n";
    ++added;
    const auto& t = part["tritondx"];
    std::cout << fmt::format("{}: {} interleaved rounds: tritondx {:.2f}x [{:.2f}, {:.2f}]{}, over autotune-only "
                             "{:.2f}x (the search measured {:.2f}x)\n",
                             e.id, part["rounds"].get<int>(), t["speedup"].get<double>(), t["ci95"][0].get<double>(),
                             t["ci95"][1].get<double>(), t["confirmed"].get<bool>() ? " confirmed" : "",
                             part["tritondx_over_autotune"]["speedup"].get<double>(),
                             entry_number(*result, {"tritondx", "speedup"}))
              << std::flush;
  }
  std::cout << fmt::format("interleaved rounds added to {} of {} entries\n", added, run.selected.size());
  if (int summary = write_summary(run); summary != 0) return summary;
  return failed ? 1 : 0;
}

}  // namespace tdx
