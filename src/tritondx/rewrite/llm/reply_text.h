// The text of an LLM reply: its fenced code blocks, its Python code and its one-line summary.
// Pure text, no bridge: what the reply parser's fuzz target runs.
#pragma once

#include <string>
#include <vector>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct CodeBlock {
  std::string language;  // the fence's info word, lower case ("python", "" when untagged)
  std::string code;      // dedented, ending with '\n'
  int line = 0;          // 1-based line of the opening fence in the reply
};

// Every fenced block (``` or ~~~, any indentation); an unclosed fence is an error.
Expected<std::vector<CodeBlock>> extract_code_blocks(const std::string& reply);

// The Python code of a reply: its python/py blocks joined in order (untagged blocks when
// there are none), or why there is none ("no code block", "no Python code block").
Expected<std::string> extract_python_code(const std::string& reply);

// The reply's prose before its first code block, first sentence, at most 200 characters.
std::string reply_summary(const std::string& reply);

}  // namespace tdx
