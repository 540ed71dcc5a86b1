// Splits MLIR_ENABLE_DUMP output into one IR snapshot per pass.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"

namespace tdx {

// "// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //"
struct PassSnapshot {
  std::string pass_name;  // "TritonGPUCoalesce"
  std::string pass_arg;   // "tritongpu-coalesce"
  std::string anchor;     // "builtin.module" / "tt.func"
  bool before = true;     // "IR Dump Before" vs "IR Dump After" (e.g. after a failure)
  bool failed = false;    // "IR Dump After ... Failed"
  int line = 0;           // line of the header in the dump text
  std::string ir;         // the IR text that follows the header
};

// One pass's effect: the IR before it, and the IR after it (the next snapshot's "before").
struct PassStep {
  std::string pass_name;
  std::string pass_arg;
  int before = -1;  // index into PassDump::snapshots
  int after = -1;   // index of the next snapshot, -1 for the last pass
  bool changed = false;  // IR text differs (locations and whitespace normalized)
};

struct PassDump {
  std::vector<PassSnapshot> snapshots;
  std::vector<PassStep> steps;
};

// Text before the first header (compiler chatter) is ignored. No header at all is an error.
Expected<PassDump> split_pass_dump(std::string_view text);

}  // namespace tdx
