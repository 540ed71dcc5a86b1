#include "tritondx/bench/bench_suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace tdx {

namespace fs = std::filesystem;

Expected<std::vector<BenchEntry>> discover_entries(const std::string& suite_dir) {
  std::error_code ec;
  if (!fs::is_directory(suite_dir, ec))
    return fail(Stage::Task, fmt::format("benchmark suite folder {} does not exist", suite_dir));
  std::vector<BenchEntry> out;
  for (const auto& category : fs::directory_iterator(suite_dir)) {
    if (!category.is_directory() || category.path().filename().string().starts_with("_")) continue;
    for (const auto& file : fs::directory_iterator(category.path())) {
      std::string name = file.path().stem().string();
      if (!file.is_regular_file() || file.path().extension() != ".py" || name.starts_with("_")) continue;
      std::string cat = category.path().filename().string();
      out.push_back({cat + "/" + name, cat, name, fs::absolute(file.path()).lexically_normal().string()});
    }
  }
  if (out.empty()) return fail(Stage::Task, fmt::format("benchmark suite folder {} holds no entries", suite_dir));
  std::sort(out.begin(), out.end(), [](const BenchEntry& a, const BenchEntry& b) { return a.id < b.id; });
  return out;
}

Expected<Shard> parse_shard(std::string_view text) {
  auto slash = text.find('/');
  Shard s;
  auto bad = [&] { return fail(Stage::Task, fmt::format("--shard {}: expected i/N with 1 <= i <= N", text)); };
  if (slash == std::string_view::npos) return bad();
  auto a = text.substr(0, slash), b = text.substr(slash + 1);
  if (std::from_chars(a.data(), a.data() + a.size(), s.index).ec != std::errc() ||
      std::from_chars(b.data(), b.data() + b.size(), s.count).ec != std::errc())
    return bad();
  if (s.count < 1 || s.index < 1 || s.index > s.count) return bad();
  return s;
}

std::vector<BenchEntry> select_entries(const std::vector<BenchEntry>& all, const std::vector<std::string>& filters,
                                       Shard shard) {
  // A filter that is an entry's whole id selects that entry alone (attention/attention_fwd, not
  // also attention/attention_fwd_causal); any other filter selects the ids containing it.
  auto is_whole_id = [&](const std::string& f) {
    return std::any_of(all.begin(), all.end(), [&](const BenchEntry& e) { return e.id == f; });
  };
  std::vector<BenchEntry> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(shard.count)) != shard.index - 1) continue;
    bool wanted = filters.empty();
    for (const auto& f : filters) wanted |= is_whole_id(f) ? all[i].id == f : all[i].id.find(f) != std::string::npos;
    if (wanted) out.push_back(all[i]);
  }
  return out;
}

}  // namespace tdx
