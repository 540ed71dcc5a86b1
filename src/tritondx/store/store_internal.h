// What the store's files share: the error guard, NULL-aware binding and reading, timestamps.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"

namespace tdx::store_detail {

// TDX_TRY for an Expected<void>: propagates its error.
#define TDX_STORE_TRY_VOID(expr)                                   \
  do {                                                             \
    if (auto tdx_void_result_ = (expr); !tdx_void_result_)         \
      return std::unexpected(std::move(tdx_void_result_.error())); \
  } while (0)

// SQL expression for "now" as ISO-8601 UTC with milliseconds: 2026-12-03T07:51:34.123Z
#define TDX_STORE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

// Runs `body` (which returns an Expected), turning any exception (SQLite, JSON) into a
// Stage::Store diagnostic naming the file and the operation.
template <class F>
auto guard(const std::string& path, std::string_view what, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail(Stage::Store, fmt::format("{}: {}", what, e.what()), 0, path);
  }
}

inline void bind_int(SQLite::Statement& st, int index, long long value) {
  st.bind(index, static_cast<std::int64_t>(value));
}
inline void bind_text(SQLite::Statement& st, int index, std::string_view value) {
  st.bind(index, std::string(value));
}
// Empty text is stored as NULL (optional columns such as recipe, reject_reason).
inline void bind_text_or_null(SQLite::Statement& st, int index, std::string_view value) {
  if (value.empty())
    st.bind(index);
  else
    st.bind(index, std::string(value));
}
template <class T>
void bind_opt(SQLite::Statement& st, int index, const std::optional<T>& value) {
  if (!value)
    st.bind(index);
  else if constexpr (std::is_floating_point_v<T>)
    st.bind(index, static_cast<double>(*value));
  else
    st.bind(index, static_cast<std::int64_t>(*value));
}
// A JSON value as text; null is stored as NULL unless `null_as_text`.
inline void bind_json(SQLite::Statement& st, int index, const nlohmann::json& value,
                      bool null_as_text = false) {
  if (value.is_null() && !null_as_text)
    st.bind(index);
  else
    st.bind(index, value.dump());
}

inline std::string text(const SQLite::Column& c) { return c.isNull() ? std::string() : c.getString(); }
inline std::optional<std::string> opt_text(const SQLite::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<std::string>(c.getString());
}
inline std::optional<long long> opt_int(const SQLite::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<long long>(c.getInt64());
}
inline std::optional<double> opt_double(const SQLite::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<double>(c.getDouble());
}
inline nlohmann::json json_or_null(const SQLite::Column& c) {
  return c.isNull() ? nlohmann::json() : nlohmann::json::parse(c.getString());
}

}  // namespace tdx::store_detail
