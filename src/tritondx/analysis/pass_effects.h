// What each compiler pass did to the kernel, per Python source line: the per-pass dump diffed
// op by op. Ops are compared by a normalized signature (op text without SSA names and
// locations, layout aliases replaced by their definitions), grouped by the source line of
// their location, so a pass that only renumbers values or renames `#blocked1` to `#blocked`
// changes no line, while one that gives a load a new layout changes the load's line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/ir/pass_dump.h"

namespace tdx {

struct PassEffect {
  int step = -1;            // index into PassDump::steps
  std::string pass_name;    // "TritonGPUCoalesce"
  std::string pass_arg;     // "tritongpu-coalesce"
  bool changed = false;     // the IR text differs (locations and whitespace normalized)
  bool compared = false;    // both sides are TTIR/TTGIR modules and were diffed per line
  std::vector<int> lines;   // source lines whose ops changed, ascending
  int ops_added = 0;        // op signatures present only after the pass (all lines)
  int ops_removed = 0;      // op signatures present only before it
  int unmapped_changes = 0; // added + removed signatures of ops with no line in the source file

  // Changed, but no op was added or removed anywhere: only order, operands or names moved.
  bool reordered_only() const { return changed && compared && ops_added == 0 && ops_removed == 0; }
};

// One entry per step of the dump, in pipeline order. `source_file` selects which locations
// count as source lines (see same_source_file). Steps past the TTGIR pipeline (LLVM dialect)
// keep `changed` but are not compared.
std::vector<PassEffect> compute_pass_effects(const PassDump& dump, const std::string& source_file);

void to_json(nlohmann::json& j, const PassEffect& e);

}  // namespace tdx
