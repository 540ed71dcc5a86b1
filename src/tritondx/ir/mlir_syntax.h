// Internal to the MLIR parser (mlir_*.cpp, layout.cpp): bracket-aware scanning of one line
// of MLIR text. Every helper skips double-quoted strings and treats (), [], {} and <> as
// nesting, except the '>' of "->". No allocation unless a function returns a container.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/ir/text_scan.h"

namespace tdx::mlir_syntax {

using scan::is_alpha;
using scan::is_digit;
using scan::is_space;
using scan::ltrim;
using scan::rtrim;
using scan::trim;

inline constexpr size_t npos = std::string_view::npos;

inline bool is_open(char c) { return c == '(' || c == '[' || c == '{' || c == '<'; }
inline char closer_of(char c) {
  return c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
}
// '>' closes a bracket unless it is the arrow "->".
inline bool is_close_at(std::string_view s, size_t i) {
  char c = s[i];
  if (c == ')' || c == ']' || c == '}') return true;
  return c == '>' && !(i > 0 && s[i - 1] == '-');
}
// Characters of an SSA name after '%' (and of a bare identifier).
inline bool is_name_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

// Characters the bracket-aware helpers stop at; everything else is skipped in a tight loop.
inline constexpr auto kBracketChars = [] {
  std::array<bool, 256> c{};
  for (unsigned char ch : std::string_view("\"()[]{}<>")) c[ch] = true;
  return c;
}();

// Index just past the closing quote of the string that starts at s[i] == '"', or npos.
inline size_t skip_string(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == '"') return i + 1;
  }
  return npos;
}

// Index of the bracket closing the one at s[open] (any kind nests), or npos.
inline size_t match_close(std::string_view s, size_t open) {
  int depth = 0;
  const size_t n = s.size();
  for (size_t i = open; i < n; ++i) {
    while (i < n && !kBracketChars[static_cast<unsigned char>(s[i])]) ++i;
    if (i == n) break;
    char c = s[i];
    if (c == '"') {
      i = skip_string(s, i);
      if (i == npos) return npos;
      --i;
    } else if (is_open(c)) {
      ++depth;
    } else if (is_close_at(s, i)) {
      if (--depth == 0) return i;
    }
  }
  return npos;
}

// First index >= from where `needle` starts at nesting depth 0 outside strings (s[from] must
// be at depth 0), or npos.
inline size_t find_top(std::string_view s, std::string_view needle, size_t from = 0) {
  int depth = 0;
  const size_t n = s.size();
  const char first = needle[0];
  for (size_t i = from; i < n; ++i) {
    char c = s[i];
    if (depth == 0 && c == first && s.compare(i, needle.size(), needle) == 0) return i;
    if (!kBracketChars[static_cast<unsigned char>(c)]) continue;
    if (c == '"') {
      i = skip_string(s, i);
      if (i == npos) return npos;
      --i;
    } else if (is_open(c)) {
      ++depth;
    } else if (is_close_at(s, i)) {
      --depth;
    }
  }
  return npos;
}

// Calls fn(piece) for each `sep`-separated piece at depth 0 (trimmed, empty ones skipped).
template <class Fn>
inline void for_each_top(std::string_view s, char sep, Fn&& fn) {
  int depth = 0;
  size_t start = 0;
  auto emit = [&](size_t end) {
    std::string_view piece = trim(s.substr(start, end - start));
    if (!piece.empty()) fn(piece);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      size_t j = skip_string(s, i);
      if (j == npos) break;
      i = j - 1;
    } else if (is_open(c)) {
      ++depth;
    } else if (is_close_at(s, i)) {
      --depth;
    } else if (c == sep && depth == 0) {
      emit(i);
      start = i + 1;
    }
  }
  emit(s.size());
}

inline std::vector<std::string_view> split_top(std::string_view s, char sep = ',') {
  std::vector<std::string_view> out;
  for_each_top(s, sep, [&](std::string_view p) { out.push_back(p); });
  return out;
}

// Calls fn(key, value) for each entry of an attribute dictionary's inside ("a = 1, b, "c" = 2");
// quoted keys are unquoted, unit attributes get an empty value.
template <class Fn>
inline void for_each_dict_entry(std::string_view inside, Fn&& fn) {
  for_each_top(inside, ',', [&](std::string_view entry) {
    size_t eq = find_top(entry, " = ");
    std::string_view key = trim(eq == npos ? entry : entry.substr(0, eq));
    std::string_view value = eq == npos ? std::string_view{} : trim(entry.substr(eq + 3));
    if (key.size() >= 2 && key.front() == '"' && key.back() == '"')
      key = key.substr(1, key.size() - 2);
    fn(key, value);
  });
}

// "[4, 1]" -> {4, 1}; nullopt when not a bracketed list of integers.
inline std::optional<std::vector<int64_t>> parse_int_list(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  std::vector<int64_t> out;
  std::string_view inside = trim(s.substr(1, s.size() - 2));
  if (inside.empty()) return out;
  bool ok = true;
  for_each_top(inside, ',', [&](std::string_view piece) {
    auto v = scan::parse_int<int64_t>(piece);
    if (!v) ok = false;
    else out.push_back(*v);
  });
  if (!ok) return std::nullopt;
  return out;
}

// Leading integer of an attribute value ("16 : i32", "-1", "3"); "true"/"false" give 1/0.
inline std::optional<int64_t> leading_int(std::string_view s) {
  s = trim(s);
  if (s == "true") return 1;
  if (s == "false") return 0;
  auto v = scan::take_int<int64_t>(s);
  if (!v) return std::nullopt;
  s = ltrim(s);
  if (!s.empty() && s[0] != ':') return std::nullopt;
  return v;
}

}  // namespace tdx::mlir_syntax
