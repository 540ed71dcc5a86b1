#include "tritondx/task/autotune_configs.h"

namespace tdx::autotune {
namespace {

bool matches_launch(const Config& c, const LaunchInfo& launch) {
  if (c.num_warps != launch.num_warps() || c.num_stages != launch.num_stages()) return false;
  for (const auto& [k, v] : c.kwargs.items())
    if (!launch.constexprs.contains(k) || launch.constexprs[k] != v) return false;
  return true;
}

}  // namespace

Config Config::from_json(const nlohmann::json& j) {
  Config c;
  if (j.contains("kwargs") && j["kwargs"].is_object()) c.kwargs = j["kwargs"];
  c.num_warps = j.value("num_warps", 4);
  c.num_stages = j.value("num_stages", 3);
  c.num_ctas = j.value("num_ctas", 1);
  if (j.contains("maxnreg") && j["maxnreg"].is_number_integer()) c.maxnreg = j["maxnreg"].get<int>();
  return c;
}

std::optional<size_t> Configs::find(const Config& c) const {
  for (size_t i = 0; i < configs.size(); ++i)
    if (configs[i] == c) return i;
  return std::nullopt;
}

void set_option(Config& c, std::string_view option, int value) {
  if (option == "num_warps") c.num_warps = value;
  if (option == "num_stages") c.num_stages = value;
  if (option == "maxnreg") c.maxnreg = value;
}

Config Configs::with_option(std::string_view option, int value) const {
  Config c = configs.at(diagnosed);
  set_option(c, option, value);
  return c;
}

std::optional<Configs> configs_of(const Task& task, std::string_view kernel, const LaunchInfo* launch) {
  const KernelInfo* info = task.kernel(kernel);
  if (!info || !info->wrappers.is_array()) return std::nullopt;
  for (const auto& w : info->wrappers) {
    if (!w.is_object() || !w.contains("configs") || !w["configs"].is_array() || w["configs"].empty()) continue;
    Configs out;
    for (const auto& c : w["configs"]) out.configs.push_back(Config::from_json(c));
    if (launch)
      for (size_t i = 0; i < out.configs.size(); ++i)
        if (matches_launch(out.configs[i], *launch)) {
          out.diagnosed = i;
          out.matched = true;
          break;
        }
    return out;
  }
  return std::nullopt;
}

}  // namespace tdx::autotune
