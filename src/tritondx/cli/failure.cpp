#include "tritondx/cli/failure.h"

#include <fstream>
#include <iostream>

namespace tdx::cli {

std::string format_failure(const BridgeFailure& f) {
  std::string out = "error: " + f.diagnostic.to_string() + "\n";
  if (f.detail.is_object()) {
    std::string source_line = f.detail.value("source_line", "");
    if (!source_line.empty()) {
      out += "    " + source_line + "\n";
      if (f.diagnostic.col > 0) out += "    " + std::string(static_cast<size_t>(f.diagnostic.col - 1), ' ') + "^\n";
    }
    std::string triton = f.detail.value("triton_message", "");
    if (!triton.empty() && f.kind == "compile-error") out += "Triton said:\n" + triton + "\n";
  }
  return out;
}

bool write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return static_cast<bool>(std::cout);
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "error: cannot write " << path << "\n";
    return false;
  }
  return true;
}

}  // namespace tdx::cli
