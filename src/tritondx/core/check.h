// TDX_CHECK: propagates the error of an Expected<void> (TDX_TRY needs a value to yield).
#pragma once

#include <expected>
#include <utility>

#define TDX_CHECK(expr)                                                                  \
  do {                                                                                   \
    auto tdx_check_result_ = (expr);                                                     \
    if (!tdx_check_result_) return std::unexpected(std::move(tdx_check_result_.error())); \
  } while (0)
