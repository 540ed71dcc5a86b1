#include "tritondx/rewrite/source_edit.h"

#include <algorithm>

#include <fmt/format.h>

#include "tritondx/core/text.h"

namespace tdx {

namespace {

// Byte offset of every line start; one past the last entry is the source size.
std::vector<size_t> line_starts(const std::string& source) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < source.size(); ++i)
    if (source[i] == '\n') starts.push_back(i + 1);
  return starts;
}

std::string describe(const TextEdit& e) {
  return fmt::format("{}:{}-{}:{}", e.line, e.col, e.end_line, e.end_col);
}

}  // namespace

TextEdit TextEdit::replace(const PyNode& node, std::string replacement) {
  return {node.line, node.col, node.end_line, node.end_col, std::move(replacement)};
}

TextEdit TextEdit::insert_before(const PyNode& node, std::string text) {
  return {node.line, node.col, node.line, node.col, std::move(text)};
}

TextEdit TextEdit::insert_after(const PyNode& node, std::string text) {
  return {node.end_line, node.end_col, node.end_line, node.end_col, std::move(text)};
}

TextEdit TextEdit::insert_lines(int line, std::string text) { return {line, 1, line, 1, std::move(text)}; }

Expected<std::string> apply_edits(const std::string& source, std::vector<TextEdit> edits) {
  auto starts = line_starts(source);
  auto offset = [&](int line, int col) -> std::optional<size_t> {
    if (line < 1 || col < 1) return std::nullopt;
    if (static_cast<size_t>(line) > starts.size()) return std::nullopt;
    size_t begin = starts[static_cast<size_t>(line - 1)];
    size_t end = static_cast<size_t>(line) < starts.size() ? starts[static_cast<size_t>(line)] : source.size();
    size_t at = begin + static_cast<size_t>(col - 1);
    if (at > end) return std::nullopt;
    return at;
  };
  struct Span {
    size_t begin, end;
    const TextEdit* edit;
  };
  std::vector<Span> spans;
  for (const auto& e : edits) {
    auto b = offset(e.line, e.col);
    auto en = offset(e.end_line, e.end_col);
    if (!b || !en || *en < *b)
      return fail(Stage::Rewrite, fmt::format("edit {} is outside the source", describe(e)), e.line);
    spans.push_back({*b, *en, &e});
  }
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].begin < spans[i - 1].end)
      return fail(Stage::Rewrite,
                  fmt::format("edits {} and {} overlap", describe(*spans[i - 1].edit), describe(*spans[i].edit)),
                  spans[i].edit->line);
  std::string out;
  size_t at = 0;
  for (const auto& s : spans) {
    out.append(source, at, s.begin - at);
    out += s.edit->replacement;
    at = s.end;
  }
  out.append(source, at, std::string::npos);
  return out;
}

std::string indentation_of(const std::string& source, int line) {
  auto lines = split_lines(source);
  if (line < 1 || static_cast<size_t>(line) > lines.size()) return {};
  const std::string& l = lines[static_cast<size_t>(line - 1)];
  return l.substr(0, l.find_first_not_of(" \t") == std::string::npos ? l.size() : l.find_first_not_of(" \t"));
}

namespace {

struct ScriptLine {
  char tag;       // ' ', '-', '+'
  size_t ai, bi;  // 0-based positions in a and b this line is at (or before)
};

// The shortest line edit script from a to b (longest common subsequence); kernel files are small.
std::vector<ScriptLine> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<ScriptLine> script;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) script.push_back({' ', i++, j++});
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) script.push_back({'-', i++, j});
    else script.push_back({'+', i, j++});
  }
  return script;
}

}  // namespace

int map_line(const std::string& before, const std::string& after, int line) {
  auto script = edit_script(split_lines(before), split_lines(after));
  for (const auto& s : script)
    if (s.tag != '+' && s.ai + 1 == static_cast<size_t>(line)) return static_cast<int>(s.bi) + 1;
  return line;
}

std::string unified_diff(const std::string& before, const std::string& after, const std::string& path) {
  auto a = split_lines(before);
  auto b = split_lines(after);
  auto script = edit_script(a, b);
  constexpr size_t kContext = 3;
  std::string out;
  size_t k = 0;
  while (k < script.size()) {
    if (script[k].tag == ' ') {
      ++k;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext lines after the last change
    // that is within 2*kContext equal lines of the previous one.
    size_t start = k >= kContext ? k - kContext : 0;
    while (start < k && script[start].tag != ' ') ++start;
    size_t end = k;
    for (size_t e = k; e < script.size(); ++e) {
      if (script[e].tag != ' ') end = e;
      else if (e - end > 2 * kContext) break;
    }
    size_t stop = std::min(script.size(), end + kContext + 1);
    size_t a_count = 0, b_count = 0;
    for (size_t t = start; t < stop; ++t) {
      if (script[t].tag != '+') ++a_count;
      if (script[t].tag != '-') ++b_count;
    }
    size_t a_start = script[start].ai + (a_count ? 1 : 0);
    size_t b_start = script[start].bi + (b_count ? 1 : 0);
    if (out.empty()) out = fmt::format("--- a/{}\n+++ b/{}\n", path, path);
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_start, a_count, b_start, b_count);
    for (size_t t = start; t < stop; ++t) {
      const auto& s = script[t];
      out += s.tag;
      out += s.tag == '+' ? b[s.bi] : a[s.ai];
      out += '\n';
    }
    k = stop;
  }
  return out;
}

}  // namespace tdx
