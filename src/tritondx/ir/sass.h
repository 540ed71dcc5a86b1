// SASS (nvdisasm -g -c -hex output or cuobjdump -sass) parsed with line info.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"

namespace tdx {

struct SassInstruction {
  int index = 0;
  int line = 0;                        // 1-based line in the SASS text
  uint32_t offset = 0;                 // /*0080*/
  std::string predicate;               // "@P0", "@!PT" or empty
  std::string opcode;                  // "LDG", "STG", "HGMMA", "FFMA", ...
  std::vector<std::string> modifiers;  // {"E", "128", "CONSTANT"}
  std::vector<std::string> operands;
  SourceLoc loc;                       // from the line-info comments
  std::string function;
  std::string text;

  std::string full_opcode() const;  // "LDG.E.128"
  bool has_modifier(std::string_view m) const;
  int access_bits() const;  // for memory ops: 128 from ".128", 64 from ".64", 32 default, 16/8 from .U16/.U8 etc.
};

struct SassModule {
  std::string arch;  // "sm_90a" when the header says it
  std::vector<std::string> functions;
  std::vector<SassInstruction> instructions;
  std::map<std::string, int> labels;  // ".L_x_1" -> index of the instruction it labels
};

Expected<SassModule> parse_sass(std::string_view text);

// A loop of the machine code: a branch back to an earlier instruction of its function. `first`
// and `last` are instruction indices (the branch target and the branch).
struct SassLoop {
  int first = 0;
  int last = 0;
};
// Every backward branch (nvdisasm's `BRA `(.L_x_1)` or cuobjdump's `BRA 0x4250`), in text order.
std::vector<SassLoop> sass_loops(const SassModule& module);

}  // namespace tdx
