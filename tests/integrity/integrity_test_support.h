// What the integrity test files share: one bridge, task sources parsed once, candidates made
// from a task file by textual edits, and violation helpers.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tritondx/integrity/integrity.h"

namespace tdx::integrity::test_support {

namespace fs = std::filesystem;

inline const fs::path kRoot = TRITONDX_SOURCE_DIR;

inline const Bridge& bridge() {
  static Bridge b(BridgeConfig::from_environment());
  return b;
}

inline const TaskSource& load(const fs::path& path) {
  static std::map<std::string, TaskSource> cache;
  auto it = cache.find(path.string());
  if (it != cache.end()) return it->second;
  auto t = load_task_source(bridge(), path.string());
  if (!t) {
    ADD_FAILURE() << "loading " << path << ": " << t.error().to_string();
    static TaskSource empty;
    return empty;
  }
  return cache.emplace(path.string(), std::move(*t)).first->second;
}

inline std::string describe(const std::vector<Violation>& vs) {
  std::string out;
  for (const auto& v : vs) out += "\n  " + fmt::format("{}", v);
  return out.empty() ? " (none)" : out;
}

inline bool has(const std::vector<Violation>& vs, std::string_view id) {
  return std::ranges::any_of(vs, [&](const Violation& v) { return v.id == id; });
}

// One textual edit: the first occurrence of `from` becomes `to`.
using Edit = std::pair<std::string, std::string>;

// `base` with the edits applied, written to a temporary file.
inline fs::path write_edited(const fs::path& base, const std::vector<Edit>& edits) {
  std::ifstream in(base);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [from, to] : edits) {
    auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << "edit anchor not found in " << base << ": " << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
  }
  fs::path dir = fs::temp_directory_path() / "tritondx-integrity-tests";
  fs::create_directories(dir);
  fs::path out = dir / ("edit_" + std::to_string(std::hash<std::string>{}(text)) + ".py");
  std::ofstream(out) << text;
  return out;
}

// The static check of `base` with the edits applied, against `original`.
inline std::vector<Violation> check_edits(const fs::path& original, const fs::path& base,
                                          const std::vector<Edit>& edits) {
  return check_static(load(original), load(write_edited(base, edits)));
}

}  // namespace tdx::integrity::test_support
