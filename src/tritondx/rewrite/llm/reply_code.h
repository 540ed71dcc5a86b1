// Taking the kernel out of an LLM reply's Python code (reply_text.h finds it): the bridge's `ast`
// verb on it, which rejects a syntax error with Python's message and code that is not a
// kernel (no @triton.jit function). A reply without launch keeps the original's (splice_reply
// checks that it may).
#pragma once

#include <string>
#include <vector>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/pyast/py_ast.h"
#include "tritondx/rewrite/llm/reply_text.h"
#include "tritondx/task/task.h"

namespace tdx {

// The reply's code as the bridge sees it: its AST and jit functions. The original task's
// imports go first (a reply may leave them out; duplicates are harmless) and stand-ins for
// reference/make_inputs are appended, so the code loads as a task. Lines first_line..code_lines
// of `code` are the reply's own.
struct ReplyCode {
  std::string code;     // prelude + the reply's code (what the AST's lines refer to)
  int first_line = 1;   // the reply's first line in `code`
  int code_lines = 0;   // the reply's last line in `code`
  std::vector<std::string> not_run;  // top-level calls / __main__ blocks blanked before the import
  Task task;       // kernels: the reply's @triton.jit functions
  PyModule module;
};

// Rejections name the cause: "not valid Python: <Python's message> at line N: `text`",
// "not a kernel: ...", "fails when imported: ...".
// Line numbers in messages are the reply's own. `prelude`: whole lines (the original's imports).
Expected<ReplyCode> parse_reply_code(const Bridge& bridge, const std::string& code, const std::string& prelude = {});

// Loads a complete task source through the bridge's `ast` verb (from a temporary file).
// parse_only: the text and its AST alone; nothing of the source runs.
std::expected<nlohmann::json, BridgeFailure> load_source_through_bridge(const Bridge& bridge, const std::string& source,
                                                                        const std::string& stem, bool parse_only = false);

}  // namespace tdx
