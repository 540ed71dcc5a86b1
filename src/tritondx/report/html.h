// Small helpers for the self-contained HTML reports.
#pragma once

#include <string>
#include <string_view>

namespace tdx {

std::string html_escape(std::string_view text);
// The <head> with inline CSS shared by every tritondx HTML page.
std::string html_page_head(std::string_view title);

}  // namespace tdx
