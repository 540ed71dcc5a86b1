#include "tritondx/ladder/finding.h"

namespace tdx {

std::string_view level_name(Level level) {
  switch (level) {
    case Level::L0: return "L0";
    case Level::L1: return "L1";
    case Level::L2: return "L2";
    case Level::L3: return "L3";
  }
  return "L?";
}

namespace {
nlohmann::json loc_json(const SourceLoc& l) { return {{"file", l.file}, {"line", l.line}, {"col", l.col}}; }
}  // namespace

void to_json(nlohmann::json& j, const EvidenceLink& e) {
  j = {{"stage", stage_name(e.stage)}, {"loc", loc_json(e.loc)}, {"ir_line", e.ir_line}, {"quote", e.quote},
       {"note", e.note}};
}

void to_json(nlohmann::json& j, const RewriteProposal& p) {
  j = {{"recipe", p.recipe.str()}, {"description", p.description}, {"params", p.params}};
  if (p.recipe.empty()) j["advice"] = true;
}

void to_json(nlohmann::json& j, const Finding& f) {
  j = {{"rule", f.rule_id},       {"level", level_name(f.level)}, {"kernel", f.kernel},
       {"loc", loc_json(f.loc)},  {"symptom", f.symptom},         {"evidence", f.evidence},
       {"cause", f.cause},        {"confidence", f.confidence},   {"proposals", f.proposals}};
  j["estimated_gain"] = f.estimated_gain ? nlohmann::json(*f.estimated_gain) : nlohmann::json();
}

}  // namespace tdx
