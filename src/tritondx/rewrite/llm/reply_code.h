// Taking the kernel out of an LLM reply: the fenced Python block(s), then the bridge's `ast`
// verb on them, which rejects a syntax error with Python's message and code that is not a
// kernel (no @triton.jit function, no launch).
#pragma once

#include <string>
#include <vector>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/pyast/py_ast.h"
#include "tritondx/task/task.h"

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

// The reply's code as the bridge sees it: its AST and jit functions. The original task's
// imports go first (a reply may leave them out; duplicates are harmless) and stand-ins for
// reference/make_inputs are appended, so the code loads as a task. Lines first_line..code_lines
// of `code` are the reply's own.
struct ReplyCode {
  std::string code;     // prelude + the reply's code (what the AST's lines refer to)
  int first_line = 1;   // the reply's first line in `code`
  int code_lines = 0;   // the reply's last line in `code`
  Task task;       // kernels: the reply's @triton.jit functions
  PyModule module;
};

// Rejections name the cause: "not valid Python: <Python's message> at line N: `text`",
// "not a kernel: ...", "fails when imported: ...".
// Line numbers in messages are the reply's own. `prelude`: whole lines (the original's imports).
Expected<ReplyCode> parse_reply_code(const Bridge& bridge, const std::string& code, const std::string& prelude = {});

// Loads a complete task source through the bridge's `ast` verb (from a temporary file).
std::expected<nlohmann::json, BridgeFailure> load_source_through_bridge(const Bridge& bridge, const std::string& source,
                                                                        const std::string& stem);

}  // namespace tdx
