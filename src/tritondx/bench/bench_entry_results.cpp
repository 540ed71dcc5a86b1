// Reading the entry results of a bench results folder, and telling those whose task file changed.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tritondx/bench/bench_summary.h"
#include "tritondx/core/file.h"
#include "tritondx/store/sha256.h"

namespace tdx {

namespace fs = std::filesystem;

nlohmann::json read_result_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

std::vector<nlohmann::json> load_entry_results(const std::string& out_dir) {
  std::vector<nlohmann::json> out;
  fs::path dir = fs::path(out_dir) / "entries";
  if (!fs::is_directory(dir)) return out;
  for (const auto& d : fs::directory_iterator(dir)) {
    fs::path p = d.path() / "entry.json";
    if (!fs::exists(p)) continue;
    auto j = read_result_json(p.string());
    if (!j.is_discarded() && j.is_object()) out.push_back(std::move(j));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.value("entry", "") < b.value("entry", ""); });
  return out;
}

void mark_changed_tasks(std::vector<nlohmann::json>& entries, const std::string& suite_dir) {
  for (auto& e : entries) {
    const fs::path task = fs::path(suite_dir) / (e.value("entry", "") + ".py");
    if (!e.contains("task_sha256") || !fs::is_regular_file(task)) continue;
    auto text = read_file(task.string(), Stage::Task);
    if (text && sha256_hex(*text) != e.value("task_sha256", "")) e["task_changed"] = true;
  }
}

}  // namespace tdx
