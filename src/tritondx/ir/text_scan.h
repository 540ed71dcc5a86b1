// Small string_view scanning helpers shared by the IR parsers (no allocation, no regex).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/text.h"

namespace tdx::scan {

using tdx::is_space;
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool is_ident(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }

using tdx::ltrim;
using tdx::rtrim;
using tdx::trim;

// Iterates the lines of a text with 1-based numbers; the newline (and a '\r' before it) is
// not part of the line.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line_start_ = pos_;
    pos_ = end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }              // number of the line last returned
  size_t line_start() const { return line_start_; }    // offset of the line last returned
  size_t position() const { return pos_; }             // offset of the next line
  std::string_view rest() const { return pos_ < text_.size() ? text_.substr(pos_) : std::string_view{}; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int number_ = 0;
};

// Takes the leading run of characters for which pred holds.
template <class Pred>
inline std::string_view take_while(std::string_view& s, Pred pred) {
  size_t i = 0;
  while (i < s.size() && pred(s[i])) ++i;
  std::string_view head = s.substr(0, i);
  s.remove_prefix(i);
  return head;
}

// Takes the next whitespace-delimited word after skipping leading whitespace.
inline std::string_view take_word(std::string_view& s) {
  s = ltrim(s);
  return take_while(s, [](char c) { return !is_space(c); });
}

inline bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Parses a decimal (or, with base 16, hex) integer at the start of s, consuming it.
template <class Int = int>
inline std::optional<Int> take_int(std::string_view& s, int base = 10) {
  Int v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || ptr == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return v;
}

template <class Int = int>
inline std::optional<Int> parse_int(std::string_view s, int base = 10) {
  s = trim(s);
  auto v = take_int<Int>(s, base);
  if (!v || !s.empty()) return std::nullopt;
  return v;
}

// Index of the first `needle` outside double-quoted strings (backslash escapes honoured),
// or npos.
inline size_t find_unquoted(std::string_view s, char needle, size_t from = 0) {
  bool in_str = false;
  for (size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == needle) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Index just past the bracket that closes the one at s[open] ('(', '[', '{' or '<'),
// counting only that bracket kind and skipping double-quoted strings; npos when unbalanced.
inline size_t match_bracket(std::string_view s, size_t open) {
  const char o = s[open];
  const char c_close = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : '>';
  int depth = 0;
  bool in_str = false;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == o) {
      ++depth;
    } else if (c == c_close && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Splits at commas that are not nested inside (), [], {} or a string; pieces are trimmed,
// empty pieces dropped.
inline std::vector<std::string> split_top_level(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  bool in_str = false;
  size_t start = 0;
  auto push = [&](size_t end) {
    std::string_view piece = trim(s.substr(start, end - start));
    if (!piece.empty()) out.emplace_back(piece);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
      continue;
    }
    switch (c) {
      case '"': in_str = true; break;
      case '(': case '[': case '{': ++depth; break;
      case ')': case ']': case '}': if (depth > 0) --depth; break;
      case ',':
        if (depth == 0) {
          push(i);
          start = i + 1;
        }
        break;
      default: break;
    }
  }
  push(s.size());
  return out;
}

// Splits an opcode like "ld.global.v4.b32" on dots: head "ld", tail {"global","v4","b32"}.
inline void split_dotted(std::string_view op, std::string& head, std::vector<std::string>& tail) {
  size_t dot = op.find('.');
  head.assign(op.substr(0, dot));
  tail.clear();
  while (dot != std::string_view::npos) {
    size_t next = op.find('.', dot + 1);
    std::string_view part = op.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1);
    if (!part.empty()) tail.emplace_back(part);
    dot = next;
  }
}

// Joins head and tail with dots (inverse of split_dotted).
inline std::string join_dotted(const std::string& head, const std::vector<std::string>& tail) {
  std::string s = head;
  for (const auto& t : tail) {
    s += '.';
    s += t;
  }
  return s;
}

// Reads a double-quoted string starting at s[0] == '"'; returns its raw contents (escapes not
// decoded) and consumes through the closing quote. nullopt if s does not start with a quote
// or the string is unterminated.
inline std::optional<std::string_view> take_quoted(std::string_view& s) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      std::string_view body = s.substr(1, i - 1);
      s.remove_prefix(i + 1);
      return body;
    }
  }
  return std::nullopt;
}

}  // namespace tdx::scan
