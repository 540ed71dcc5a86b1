// Inline SVG charts for the HTML reports (no scripts, no external files).
#pragma once

#include <string>
#include <vector>

namespace tdx {

struct ChartBar {
  std::string label;  // left of the bar
  double value = 0;
  std::string note;   // right of the bar ("1.04x, 0.0958 ms")
  bool highlight = false;
};

// Horizontal bars scaled to the largest value, with a dashed vertical line at `reference` (e.g.
// 1.0 for speedups) when it is positive.
std::string svg_bar_chart(const std::string& title, const std::vector<ChartBar>& bars, double reference);

}  // namespace tdx
