#include "tritondx/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>

#include "tritondx/report/html.h"

namespace tdx {

std::string svg_bar_chart(const std::string& title, const std::vector<ChartBar>& bars, double reference) {
  constexpr int kLabel = 190, kBarArea = 420, kNote = 230, kRow = 20, kTop = 30;
  const int width = kLabel + kBarArea + kNote, height = kTop + kRow * static_cast<int>(bars.size()) + 10;
  double top = reference;
  for (const auto& b : bars) top = std::max(top, b.value);
  if (top <= 0) top = 1;
  auto x_of = [&](double v) { return kLabel + kBarArea * std::max(v, 0.0) / top; };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<title>{2}</title>\n"
      "<text x=\"0\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{2}</text>\n",
      width, height, html_escape(title));
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const int y = kTop + kRow * static_cast<int>(i);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabel - 6, y + 13, html_escape(b.label));
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n", kLabel, y + 3,
                       x_of(b.value) - kLabel, kRow - 6, b.highlight ? "#2f7d32" : "#4878a8");
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", x_of(b.value) + 4, y + 13, html_escape(b.note));
  }
  if (reference > 0)
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n",
                       x_of(reference), kTop, height - 8);
  return out + "</svg>\n";
}

}  // namespace tdx
