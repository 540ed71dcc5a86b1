// Small helpers for the self-contained HTML reports.
#pragma once

#include <string>
#include <string_view>

namespace tdx {

std::string html_escape(std::string_view text);
// A whole tritondx HTML page: the doctype, a <head> with the shared inline CSS (plus `extra_css`),
// and `body` (already HTML) inside <body>. Every HTML report is written by it.
std::string html_page(std::string_view title, std::string_view body, std::string_view extra_css = {});

}  // namespace tdx
