// A candidate: the whole task file after one rewrite, with what produced it and why.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/source_loc.h"

namespace tdx {

struct Candidate {
  std::string source;                // the complete task file after the rewrite
  std::string rewriter;              // "recipe" or "llm"
  std::string recipe;                // recipe id ("exp-to-exp2"), or "llm"
  std::string kernel;                // the kernel the rewrite is about
  std::vector<std::string> targets;  // rule ids of the findings it addresses
  SourceLoc target_loc;              // where the targeted finding points
  std::string description;           // one line: what changed
  nlohmann::json params;             // the evidence-derived parameters it used
  std::string diff;                  // unified diff from its parent's source
};

void to_json(nlohmann::json& j, const Candidate& c);

}  // namespace tdx
