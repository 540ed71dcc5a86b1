#include "tritondx/rewrite/llm/reply_text.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "tritondx/core/text.h"

namespace tdx {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A fence line: indentation, then 3+ backticks or tildes. Returns the fence run and the info string.
bool fence_line(const std::string& line, std::string& fence, std::string& info) {
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return false;
  char c = line[b];
  if (c != '`' && c != '~') return false;
  size_t e = b;
  while (e < line.size() && line[e] == c) ++e;
  if (e - b < 3) return false;
  fence = line.substr(b, e - b);
  info = trim_copy(std::string_view(line).substr(e));
  return true;
}

std::string dedent(const std::vector<std::string>& lines) {
  size_t common = std::string::npos;
  for (const auto& l : lines) {
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    common = std::min(common, b);
  }
  if (common == std::string::npos) common = 0;
  std::string out;
  for (const auto& l : lines) {
    std::string t = l;
    if (!t.empty() && t.back() == '\r') t.pop_back();
    out += (t.size() >= common ? t.substr(common) : trim_copy(t)) + "\n";
  }
  return out;
}

}  // namespace

Expected<std::vector<CodeBlock>> extract_code_blocks(const std::string& reply) {
  std::vector<CodeBlock> out;
  auto lines = split_lines(reply);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string fence, info;
    if (!fence_line(lines[i], fence, info)) continue;
    CodeBlock block;
    block.line = static_cast<int>(i) + 1;
    block.language = lower(info.substr(0, info.find_first_of(" \t{")));
    std::vector<std::string> body;
    bool closed = false;
    for (++i; i < lines.size(); ++i) {
      std::string f, rest;
      if (fence_line(lines[i], f, rest) && rest.empty() && f[0] == fence[0] && f.size() >= fence.size()) {
        closed = true;
        break;
      }
      body.push_back(lines[i]);
    }
    if (!closed)
      return fail(Stage::Llm, fmt::format("the reply's code block opened at line {} is never closed", block.line));
    block.code = dedent(body);
    out.push_back(std::move(block));
  }
  return out;
}

Expected<std::string> extract_python_code(const std::string& reply) {
  auto blocks = TDX_TRY(extract_code_blocks(reply));
  if (blocks.empty()) return fail(Stage::Llm, "no code block in the reply");
  auto is_python = [](const CodeBlock& b) { return b.language == "python" || b.language == "py" || b.language == "python3"; };
  std::string code;
  for (const auto& b : blocks)
    if (is_python(b)) code += (code.empty() ? "" : "\n\n") + b.code;
  if (code.empty())
    for (const auto& b : blocks)
      if (b.language.empty()) code += (code.empty() ? "" : "\n\n") + b.code;
  if (trim_copy(code).empty()) {
    std::string langs;
    for (const auto& b : blocks) langs += (langs.empty() ? "" : ", ") + (b.language.empty() ? "untagged" : b.language);
    return fail(Stage::Llm, fmt::format("no Python code block in the reply (found: {})", langs));
  }
  return code;
}

std::string reply_summary(const std::string& reply) {
  std::string prose;
  for (const auto& line : split_lines(reply)) {
    std::string f, info;
    if (fence_line(line, f, info)) break;
    std::string t = trim_copy(line);
    if (t.empty()) {
      if (!prose.empty()) break;
      continue;
    }
    prose += (prose.empty() ? "" : " ") + t;
  }
  while (!prose.empty() && (prose.front() == '#' || prose.front() == '*' || prose.front() == ' ')) prose.erase(0, 1);
  if (auto dot = prose.find(". "); dot != std::string::npos) prose = prose.substr(0, dot + 1);
  if (prose.size() > 200) prose = prose.substr(0, 197) + "...";
  return prose;
}

}  // namespace tdx
