// SourceMap: which ops/instructions each Python source line became in every stage,
// and the reverse (the source line of any op/instruction).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"
#include "tritondx/ir/program.h"

namespace tdx {

// The stages a SourceMap indexes, in lowering order.
inline constexpr std::array<Stage, 5> kMappedStages{Stage::Ttir, Stage::Ttgir, Stage::Llir, Stage::Ptx,
                                                    Stage::Sass};

class SourceMap {
 public:
  // `source_file` selects which file's lines are indexed: locations in other files
  // (e.g. Triton's own language helpers) are left out. A location whose path differs but
  // whose file name matches is accepted, so IR captured on another machine still maps.
  static SourceMap build(const Program& program, const std::string& source_file);

  // Indices into the stage's op/instruction vector for one source line (empty if none).
  const std::vector<int>& at(Stage stage, int line) const;
  // Every source line that some stage maps to, ascending.
  std::vector<int> lines() const;
  // Source location of one op/instruction; nullopt if it has none or it is in another file.
  std::optional<SourceLoc> loc_of(Stage stage, int index) const;
  // Ops/instructions with no location in the source file.
  int unmapped(Stage stage) const;

 private:
  struct StageIndex {
    std::map<int, std::vector<int>> by_line;
    std::vector<SourceLoc> locs;  // per op/instruction; line 0 = unmapped
    int unmapped = 0;
  };
  const StageIndex* index(Stage stage) const;
  std::map<Stage, StageIndex> stages_;
};

// True when `loc_file` names the same file as `source_file` (by path, or by file name).
bool same_source_file(const std::string& loc_file, const std::string& source_file);

}  // namespace tdx
