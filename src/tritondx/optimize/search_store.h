// How the search's nodes and evaluations go into the store, and come back for --resume.
#pragma once

#include "tritondx/optimize/evaluate.h"
#include "tritondx/optimize/optimize_options.h"
#include "tritondx/optimize/search.h"
#include "tritondx/store/store.h"

namespace tdx {

// Findings, measurements, target check, score and verdict of an evaluated node, each write
// its own transaction, the verdict last (so a node is finished only when all of it is stored).
Expected<void> record_evaluation(Store& store, const SearchNode& node, const Evaluation& e);

SearchNode node_from_record(const CandidateRecord& record);

Expected<void> set_run_device(Store& store, long long run_id, const std::string& device);

nlohmann::json options_to_json(const OptimizeOptions& o);

}  // namespace tdx
