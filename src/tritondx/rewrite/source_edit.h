// Text edits on a kernel task's Python source, addressed by the AST's line/column spans, and
// the unified diff a report shows for them.
#pragma once

#include <string>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/pyast/py_ast.h"

namespace tdx {

// Replace [line:col, end_line:end_col) with `replacement`. Lines are 1-based; columns are
// 1-based like PyNode's (Python's col_offset + 1) and count UTF-8 bytes; the end is exclusive.
// An insertion has an empty range (end == start).
struct TextEdit {
  int line = 0, col = 0, end_line = 0, end_col = 0;
  std::string replacement;

  static TextEdit replace(const PyNode& node, std::string replacement);
  static TextEdit insert_before(const PyNode& node, std::string text);
  static TextEdit insert_after(const PyNode& node, std::string text);
  // Inserts whole lines before line `line` (each line of `text` must end with '\n').
  static TextEdit insert_lines(int line, std::string text);
};

// Applies non-overlapping edits (in any order). Overlapping or out-of-range edits are an error
// naming the edit; the source is left untouched.
Expected<std::string> apply_edits(const std::string& source, std::vector<TextEdit> edits);

// The indentation (leading spaces/tabs) of 1-based line `line` of `source`.
std::string indentation_of(const std::string& source, int line);

// Where 1-based line `line` of `before` is in `after` (a changed line maps to the line that
// replaced it, a deleted one to the line that follows it).
int map_line(const std::string& before, const std::string& after, int line);

// A unified diff (3 lines of context) from `before` to `after`, with a/ and b/ headers named `path`.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& path);

}  // namespace tdx
