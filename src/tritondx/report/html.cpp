#include "tritondx/report/html.h"

#include <fmt/format.h>

namespace tdx {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_page(std::string_view title, std::string_view body, std::string_view extra_css) {
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }}
h1 {{ font-size: 1.3em; }} h2 {{ font-size: 1.1em; margin-top: 1.5em; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; vertical-align: top; text-align: left; }}
th {{ background: #f0f0f0; }}
code, pre, .src {{ font-family: ui-monospace, monospace; white-space: pre; }}
.muted {{ color: #777; }} .warn {{ color: #a40; }} .ok {{ color: #070; }}
.finding {{ border-left: 4px solid #c60; padding-left: 6px; margin: 4px 0; }}
{}</style></head>
<body>
{}</body>
</html>
)",
                     html_escape(title), extra_css, body);
}

}  // namespace tdx
