// A kernel task (see docs/task-format.md), as loaded and validated by the bridge.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/core/text.h"

namespace tdx {

struct KernelParam {
  std::string name;
  bool is_constexpr = false;
  bool do_not_specialize = false;
};

struct KernelInfo {
  std::string name;
  int def_line = 0;
  int end_line = 0;
  std::vector<KernelParam> params;
  nlohmann::json wrappers;  // autotune / heuristics wrappers with their configs
};

struct Task {
  std::string path;  // absolute
  std::string source;
  std::vector<std::string> lines;  // source split in lines; lines[0] is line 1
  std::vector<KernelInfo> kernels;
  nlohmann::json tolerance;  // null when the task uses the defaults
  bool has_flops = false;
  bool has_bytes = false;
  std::string doc;

  const KernelInfo* kernel(std::string_view name) const;
  std::string_view line(int number) const;  // "" when out of range
};

// Loads and validates the task through the bridge's `ast` verb (which also validates).
Expected<Task> load_task(const Bridge& bridge, const std::string& path);

// A Task from the bridge's description: {"path", "source", "kernels", "task"} (the `ast`
// reply, or the `task_info` of a compile reply made with include_task).
Task task_from_json(const nlohmann::json& j);

}  // namespace tdx
