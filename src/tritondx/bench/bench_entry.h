// One benchmark entry, measured side by side in one run on one card: the initial kernel,
// tritondx (recipes only), the autotune-only grid, torch eager and torch.compile, and the
// roofline floor. The result is one JSON document (docs/bench.md lists its fields).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/bench/bench_suite.h"
#include "tritondx/bridge/bridge.h"
#include "tritondx/optimize/evaluate.h"

namespace tdx {

struct BenchOptions {
  std::string suite_dir;
  std::string out_dir;               // entries/<category>__<name>/entry.json, summary.*
  GpuMode gpu = GpuMode::Auto;
  int max_candidates = 16;           // tritondx's search budget per entry
  double max_seconds = 900;          // and its wall-time budget
  bool autotune = true;              // run the autotune-only grid
  bool torch = true;                 // time torch eager and torch.compile
  bool force = false;                // redo entries that already have a result
  double stop_after = 0;             // start no entry after this many seconds (0: no limit)
  std::string target = "nvidia-h200";
  std::string command;               // the command line, recorded in every result
  bool allow_mixed_cards = false;    // --merge: also take entries measured on another card
  int rounds = 7;                    // interleaved rounds of initial / tritondx / autotune-only (0: none)
};

// What an entry's result measures, as a number: bumped when that changes, so that results of an
// older revision are redone and not summarized with the newer ones. 1: before the optimizer's
// launch-tuning stage; 2: with it.
inline constexpr int kBenchRevision = 2;

// The revision an entry result was written by (1 when it predates the field).
inline int bench_revision(const nlohmann::json& entry) { return entry.value("bench_revision", 1); }

// The folder of an entry's results.
std::string entry_dir(const BenchOptions& o, const BenchEntry& e);

// Now, as results record it: "2026-12-05T08:45:06Z".
std::string utc_now();

// Whether `candidate` should replace `held` as an entry's result when folders are merged: it
// was started later, or it is the same measurement with interleaved rounds measured later.
bool newer_result(const nlohmann::json& candidate, const nlohmann::json& held);

// The GPU an entry result (entry.json, entry.partial.json) was measured on; "" when it names none.
std::string card_of(const nlohmann::json& result);

// An entry's stored result if it is still valid for this source and these options (a result
// measured without a GPU is redone when one is asked for, and so is one measured on a card other
// than `card`, the GPU this run sees, when that is known).
std::optional<nlohmann::json> stored_result(const BenchOptions& o, const BenchEntry& e, bool want_gpu,
                                            const std::string& card = "");

// Runs the entry and writes entry.json. A failure of one part (the optimizer, a baseline) is
// recorded in the result, not raised: the entry is listed as failed, and what was measured stays.
nlohmann::json run_bench_entry(const Bridge& bridge, const BenchEntry& entry, const BenchOptions& options);

}  // namespace tdx
