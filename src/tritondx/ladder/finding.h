// A Finding: one diagnosed reason a kernel is slow, with the evidence chain behind it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"
#include "tritondx/ladder/recipe_id.h"

namespace tdx {

enum class Level { L0 = 0, L1 = 1, L2 = 2, L3 = 3 };

std::string_view level_name(Level level);  // "L0" ...

// One link of an evidence chain: a stage, the source line it points at, and the quoted
// IR/source line that a reader can check.
struct EvidenceLink {
  Stage stage = Stage::Source;
  SourceLoc loc;        // Python source position the link points at
  int ir_line = 0;      // line in the stage's text (TTGIR line, PTX line, ...), 0 if n/a
  std::string quote;    // the quoted line
  std::string note;     // what it shows
};

// A source change that would address the finding (the rewriting itself is done later): a built-in recipe
// with its parameters, or advice (an empty recipe) for a change no recipe makes, which the report shows and
// the LLM rewriter is given.
struct RewriteProposal {
  RecipeId recipe;          // a built-in recipe id, e.g. "add-multiple-of-hint"; empty for advice
  std::string description;  // human-readable change
  nlohmann::json params;    // evidence-derived parameters (block size, axis, ...)
};

struct Finding {
  std::string rule_id;  // "l2-scalar-global-access"
  Level level = Level::L0;
  std::string kernel;
  SourceLoc loc;           // the Python line it is about
  std::string symptom;     // one line
  std::vector<EvidenceLink> evidence;
  std::string cause;
  double confidence = 0.5;  // 0..1
  std::optional<double> estimated_gain;  // expected speedup factor (e.g. 1.8), when computable
  std::vector<RewriteProposal> proposals;
};

void to_json(nlohmann::json& j, const EvidenceLink& e);
void to_json(nlohmann::json& j, const RewriteProposal& p);
void to_json(nlohmann::json& j, const Finding& f);

}  // namespace tdx
