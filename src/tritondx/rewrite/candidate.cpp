#include "tritondx/rewrite/candidate.h"

namespace tdx {

void to_json(nlohmann::json& j, const Candidate& c) {
  j = nlohmann::json{{"rewriter", c.rewriter},       {"recipe", c.recipe},
                     {"kernel", c.kernel},           {"targets", c.targets},
                     {"line", c.target_loc.line},    {"description", c.description},
                     {"params", c.params},           {"diff", c.diff},
                     {"source", c.source}};
}

}  // namespace tdx
