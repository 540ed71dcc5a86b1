// LLVM IR (Triton's .llir) parsed to instructions with their !dbg source lines.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"

namespace tdx {

struct LlvmInstruction {
  int index = 0;
  int line = 0;            // 1-based line in the IR text
  std::string function;    // enclosing function name
  std::string block;       // enclosing basic block label ("" for the entry block)
  std::string result;      // "%12" or empty
  std::string opcode;      // "load", "store", "call", "getelementptr", "fadd", ...
  std::string type;        // result/first type token where easy to find, e.g. "<4 x i32>"
  std::string callee;      // for call: "@llvm.nvvm.barrier0"; for inline asm calls: "asm"
  std::string inline_asm;  // the asm string of `call ... asm sideeffect "..."`
  int dbg = -1;            // !dbg metadata id, -1 if none
  SourceLoc loc;           // resolved via !DILocation (and its scope's file)
  std::string text;
};

struct LlvmFunction {
  std::string name;
  bool is_definition = false;  // define vs declare
  int line = 0;
  int first_instruction = -1;  // [first, end) in LlvmModule::instructions
  int end_instruction = -1;
};

struct LlvmModule {
  std::vector<LlvmFunction> functions;
  std::vector<LlvmInstruction> instructions;
  std::map<int, SourceLoc> debug_locations;  // !N -> DILocation resolved to file:line:col
  std::map<int, int> inlined_at;             // DILocation !N -> the DILocation !M it was inlined at
};

Expected<LlvmModule> parse_llvm_ir(std::string_view text);

}  // namespace tdx
