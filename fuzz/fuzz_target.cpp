// One libFuzzer target; FUZZ_TARGET_NAME (set by fuzz/CMakeLists.txt) picks the parser.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "contract.h"
#include "targets.h"

namespace {

const tdx::fuzz::Target& target() {
  static const tdx::fuzz::Target* found = [] {
    for (const auto& t : tdx::fuzz::targets())
      if (t.name == FUZZ_TARGET_NAME) return &t;
    std::abort();
  }();
  return *found;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto error = target().run(input)) tdx::fuzz::require_contract(*error, target().stage, input);
  return 0;
}
