// What every parser owes a bad input, checked by the fuzz targets and by the regression test
// that replays the inputs they found: a diagnostic of the parser's own stage, with a message,
// and a line inside the input (0 when the error has no line).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tritondx/core/diagnostic.h"

namespace tdx::fuzz {

inline int line_count(std::string_view text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// Empty when `d` keeps the contract, else what it breaks.
inline const char* contract_breach(const Diagnostic& d, Stage stage, std::string_view input) {
  if (d.stage != stage) return "the diagnostic names another stage";
  if (d.message.empty()) return "the diagnostic has no message";
  if (d.line < 0 || d.line > line_count(input)) return "the diagnostic's line is outside the input";
  return nullptr;
}

inline void require_contract(const Diagnostic& d, Stage stage, std::string_view input) {
  if (const char* breach = contract_breach(d, stage, input)) {
    std::fprintf(stderr, "contract broken: %s: %s\n", breach, d.to_string().c_str());
    std::abort();
  }
}

}  // namespace tdx::fuzz
