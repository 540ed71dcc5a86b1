// PTX parsed to instructions with modifiers, vector width, state space and .loc lines.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"

namespace tdx {

struct PtxInstruction {
  int index = 0;
  int line = 0;                        // 1-based line in the PTX text
  std::string predicate;               // "@%p1", "@!%p2" or empty
  std::string opcode;                  // "ld", "st", "cp", "mma", "wgmma", "fma", "bar", ...
  std::vector<std::string> modifiers;  // the dotted parts after the opcode: {"global","v4","b32"}
  std::string state_space;             // "global", "shared", "local", "param", "const" or empty;
                                       // the first one named ("shared::cluster" -> "shared")
  int vector_width = 1;                // 1, 2 or 4 from .v2/.v4
  int element_bits = 0;                // from .b32/.f16/.u64/... (0 if none); cp.async: cp-size * 8
  std::vector<std::string> operands;
  SourceLoc loc;                       // from the most recent .loc
  std::string function;                // enclosing .entry/.func
  std::string text;

  std::string full_opcode() const;  // "ld.global.v4.b32"
  bool has_modifier(std::string_view m) const;
  int access_bits() const { return vector_width * element_bits; }
};

struct PtxModule {
  std::string version;  // ".version 8.7" -> "8.7"
  std::string target;   // "sm_90a"
  int address_size = 0;
  std::vector<std::string> entries;     // .entry names
  std::map<int, std::string> files;     // .file id -> path
  std::vector<PtxInstruction> instructions;
  int max_nreg = 0;                     // .maxnreg if present
};

Expected<PtxModule> parse_ptx(std::string_view text);

}  // namespace tdx
