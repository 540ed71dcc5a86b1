// Merging one tritondx store into another (the stores of bench shards run on several hosts):
// every run with its candidates, findings, evidence, measurements and LLM calls is copied,
// ids renumbered past the destination's, so both stores' runs stay whole and resumable. Runs
// the destination already holds (same task path, source hash and start time: a common ancestor
// of both stores, or an earlier merge) are skipped, so merging is idempotent.
#pragma once

#include <string>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct MergeStats {
  long long runs = 0, candidates = 0, findings = 0, measurements = 0, llm_calls = 0;
  long long skipped_runs = 0;  // runs of `from` the destination already held
};

// `into` is created (as a store) if it does not exist; `from` must be a tritondx store of the
// same schema version. The copy is one transaction: all of it, or nothing.
Expected<MergeStats> merge_store(const std::string& into, const std::string& from);

}  // namespace tdx
