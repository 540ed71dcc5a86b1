// Diagnostics: the error type every fallible function returns.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json_fwd.hpp>

namespace tdx {

// Where a piece of evidence or an error comes from.
enum class Stage {
  Source,
  Task,
  Bridge,
  Ttir,
  Ttgir,
  Llir,
  Ptx,
  Sass,
  PassDump,
  Remark,
  WhatIf,
  Store,
  Profile,  // GPU measurements: timing, Nsight Compute metrics and stall samples (L1)
  Rewrite,  // a recipe or an LLM rewriting the source
  Llm,      // the chat-completions endpoint and its replies
  Verify,   // a candidate's correctness, timing and integrity checks
};

std::string_view stage_name(Stage stage);
Stage stage_from_name(std::string_view name);  // unknown names map to Stage::Source

// One error, printed as `file:line:col: stage: message` (ccache/clang style).
struct Diagnostic {
  Stage stage = Stage::Source;
  std::string file;
  int line = 0;  // 1-based; 0 = unknown
  int col = 0;   // 1-based; 0 = unknown
  std::string message;

  std::string to_string() const;
};

template <class T>
using Expected = std::expected<T, Diagnostic>;

inline std::unexpected<Diagnostic> fail(Stage stage, std::string message, int line = 0,
                                        std::string file = {}, int col = 0) {
  return std::unexpected(Diagnostic{stage, std::move(file), line, col, std::move(message)});
}

void to_json(nlohmann::json& j, const Diagnostic& d);

}  // namespace tdx

// Propagates the error of an Expected; otherwise yields its value.
#define TDX_TRY(expr)                                          \
  ({                                                           \
    auto tdx_try_result_ = (expr);                             \
    if (!tdx_try_result_) return std::unexpected(std::move(tdx_try_result_.error())); \
    std::move(*tdx_try_result_);                               \
  })

template <>
struct fmt::formatter<tdx::Diagnostic> : fmt::formatter<std::string> {
  auto format(const tdx::Diagnostic& d, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(d.to_string(), ctx);
  }
};
