// Text helpers every layer uses: trimming white space and splitting into lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tdx {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

inline std::string_view ltrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

inline std::string_view rtrim(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

inline std::string_view trim(std::string_view s) { return rtrim(ltrim(s)); }
inline std::string trim_copy(std::string_view s) { return std::string(trim(s)); }

// The lines of `text` without their '\n' (a final newline adds no empty line).
std::vector<std::string> split_lines(std::string_view text);

}  // namespace tdx
