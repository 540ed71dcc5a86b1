// The search's clocks: its wall time less the time spent waiting for a GPU that other bench
// workers held, and the part of it the time budget counts.
#include <chrono>

#include "tritondx/bridge/bridge.h"
#include "tritondx/optimize/search_impl.h"

namespace tdx::search_detail {

double Search::waited() const { return bridge_gpu_lock_wait_seconds() - waited_at_start_; }

double Search::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() - waited();
}

// The time budget is the search's: the kernel as given is loaded, evaluated and profiled whatever
// the budget, so the clock starts once that is done (budget_from_). On the H100, Liger's JSD
// (9.2 ms with a 65536-element block) took 180 s to check, profile and diagnose as given, and a
// 40 s budget then left no candidate of its diagnosis evaluated
// (results/gpu/corpus-2026-12-07-s27/call2-bench.log).
double Search::budget_spent() const { return elapsed() - budget_from_; }

}  // namespace tdx::search_detail
