// Building the candidate from an LLM reply: the original task file with its @triton.jit
// functions and launch replaced by the reply's versions of the same names. New functions are
// inserted before launch, missing imports after the original's imports, new module-level
// constants after those. reference, make_inputs, bytes_moved, flops and TOLERANCE always
// stay the original's: the LLM is never trusted with the reference.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"
#include "tritondx/pyast/py_ast.h"
#include "tritondx/rewrite/llm/reply_code.h"
#include "tritondx/task/task.h"

namespace tdx {

struct Splice {
  std::string source;                      // the candidate task file
  std::vector<std::string> replaced;       // functions taken from the reply in place of the original's
  std::vector<std::string> inserted;       // new functions and constants from the reply
  std::vector<std::string> added_imports;  // import statements the original lacked
  std::vector<std::string> ignored;        // what the reply had that was not taken, with why

  nlohmann::json to_json() const;
};

// Fails when the result would not be a valid rewrite: launch's parameters changed, launch
// no longer names any @triton.jit function, or nothing changed.
Expected<Splice> splice_reply(const Task& original, const PyModule& original_ast, const ReplyCode& reply);

}  // namespace tdx
