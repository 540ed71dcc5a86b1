#include "tritondx/task/launch_info.h"

#include <algorithm>
#include <cctype>

namespace tdx {

long long LaunchInfo::programs() const {
  long long n = 1;
  for (auto g : grid) n *= std::max<long long>(g, 1);
  return n;
}

std::optional<long long> LaunchInfo::int_arg(std::string_view name) const {
  std::string key(name);
  if (auto it = constexprs.find(key); it != constexprs.end() && it->is_number_integer()) return it->get<long long>();
  if (auto it = args.find(key); it != args.end() && it->value("kind", "") == "scalar") {
    const auto& v = (*it)["value"];
    if (v.is_number_integer()) return v.get<long long>();
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  }
  return std::nullopt;
}

int LaunchInfo::num_warps() const { return options.value("num_warps", 4); }
int LaunchInfo::num_stages() const { return options.value("num_stages", 3); }

std::vector<std::pair<std::string, long long>> LaunchInfo::block_constexprs() const {
  std::vector<std::pair<std::string, long long>> out;
  if (!constexprs.is_object()) return out;
  for (const auto& [name, value] : constexprs.items()) {
    std::string upper = name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper.find("BLOCK") != std::string::npos && value.is_number_integer()) out.emplace_back(name, value.get<long long>());
  }
  return out;
}

LaunchInfo launch_from_json(const nlohmann::json& j) {
  LaunchInfo l;
  l.kernel = j.value("kernel", "");
  for (const auto& g : j.value("grid", nlohmann::json::array())) l.grid.push_back(g.get<long long>());
  l.signature = j.value("signature", nlohmann::json::object());
  l.constexprs = j.value("constexprs", nlohmann::json::object());
  l.attrs = j.value("attrs", nlohmann::json::object());
  l.options = j.value("options", nlohmann::json::object());
  l.args = j.value("args", nlohmann::json::object());
  l.call_line = j.value("call_line", 0);
  return l;
}

}  // namespace tdx
