// One kernel launch as the bridge's capture saw it (its `launches` entries): grid, signature,
// constexprs, specialization attributes, options and the bound arguments.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tdx {

struct LaunchInfo {
  std::string kernel;
  std::vector<long long> grid;
  nlohmann::json signature;   // param -> "*fp32" | "i32" | "constexpr"
  nlohmann::json constexprs;  // param -> value
  nlohmann::json attrs;       // param -> [["tt.divisibility", 16]]
  nlohmann::json options;     // num_warps, num_stages, ...
  nlohmann::json args;        // param -> {"kind": "tensor", shape, dtype, stride, bytes} | {"kind": "scalar", value}
  // The task file's line that launched this kernel; 0 when several lines did, or none in the task file.
  int call_line = 0;

  long long programs() const;  // product of the grid
  std::optional<long long> int_arg(std::string_view name) const;  // scalar or constexpr integer value
  int num_warps() const;
  int num_stages() const;
  // Integer constexprs whose name contains BLOCK (any case): the launch's block sizes.
  std::vector<std::pair<std::string, long long>> block_constexprs() const;
};

LaunchInfo launch_from_json(const nlohmann::json& j);

}  // namespace tdx
