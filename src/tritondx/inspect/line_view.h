// The per-source-line cross-layer view: line -> TTIR ops -> TTGIR ops with layouts ->
// PTX and SASS instruction counts by class.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/ir/program.h"
#include "tritondx/ir/source_map.h"

namespace tdx {

struct LineView {
  int line = 0;
  std::string source;                       // the Python line
  std::vector<std::string> ttir_ops;        // op names in order, e.g. "tt.load"
  std::vector<std::string> ttgir_ops;       // "tt.load : blocked spt=[4] ..."
  std::map<std::string, int> llir_opcodes;  // opcode -> count
  std::map<std::string, int> ptx_classes;   // class -> count
  std::map<std::string, int> sass_classes;
  int ptx_total = 0;
  int sass_total = 0;
};

// One LineView per source line that any stage maps to; `source_lines[0]` is line 1.
std::vector<LineView> build_line_views(const Program& program, const SourceMap& map,
                                       const std::vector<std::string>& source_lines);

void to_json(nlohmann::json& j, const LineView& v);

}  // namespace tdx
