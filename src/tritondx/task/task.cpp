#include "tritondx/task/task.h"

#include <filesystem>

namespace tdx {

const KernelInfo* Task::kernel(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::string_view Task::line(int number) const {
  if (number < 1 || number > static_cast<int>(lines.size())) return {};
  return lines[static_cast<size_t>(number - 1)];
}

Expected<Task> load_task(const Bridge& bridge, const std::string& path) {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (!std::filesystem::exists(absolute, ec))
    return fail(Stage::Task, "task file not found", 0, absolute);
  auto reply = bridge.call("ast", {{"task", absolute}});
  if (!reply) return std::unexpected(reply.error().diagnostic);
  return task_from_json(*reply);
}

Task task_from_json(const nlohmann::json& j) {
  Task task;
  task.path = j.value("path", "");
  task.source = j.value("source", "");
  task.lines = split_lines(task.source);
  for (const auto& k : j.value("kernels", nlohmann::json::array())) {
    KernelInfo info;
    info.name = k.value("name", "");
    info.def_line = k.value("def_line", 0);
    info.end_line = k.value("end_line", 0);
    for (const auto& p : k.value("params", nlohmann::json::array()))
      info.params.push_back({p.value("name", ""), p.value("constexpr", false), p.value("do_not_specialize", false)});
    info.wrappers = k.value("wrappers", nlohmann::json::array());
    task.kernels.push_back(std::move(info));
  }
  const auto t = j.value("task", nlohmann::json::object());
  task.tolerance = t.value("tolerance", nlohmann::json());
  task.has_flops = t.value("has_flops", false);
  task.has_bytes = t.value("has_bytes", false);
  task.doc = t.value("doc", "");
  return task;
}

}  // namespace tdx
