// A position in the kernel's Python source, as IR location info records it.
#pragma once

#include <compare>
#include <string>

namespace tdx {

struct SourceLoc {
  std::string file;
  int line = 0;  // 1-based; 0 = unknown
  int col = 0;   // 1-based; 0 = unknown

  bool known() const { return line > 0; }
  auto operator<=>(const SourceLoc&) const = default;
};

}  // namespace tdx
