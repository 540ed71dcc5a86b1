// The configs of a kernel's @triton.autotune as the capture read them, and the one the diagnosis
// compiled. Facts only: the recipes that add a config and the ladder, which drops proposals the
// autotuner already tries, both read them.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/task/launch_info.h"
#include "tritondx/task/task.h"

namespace tdx::autotune {

// One triton.Config.
struct Config {
  nlohmann::json kwargs = nlohmann::json::object();
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
  std::optional<int> maxnreg;

  bool operator==(const Config&) const = default;
  static Config from_json(const nlohmann::json& j);
};

struct Configs {
  std::vector<Config> configs;
  size_t diagnosed = 0;  // the config the launch's options and constexprs match (the first if none)
  bool matched = false;  // whether one matched

  // The index of `c` among the configs, if the autotuner has it.
  std::optional<size_t> find(const Config& c) const;
  // The diagnosed config with launch option `option` (num_warps, num_stages or maxnreg) set.
  Config with_option(std::string_view option, int value) const;
};

// Sets launch option `option` (num_warps, num_stages or maxnreg) of `c`.
void set_option(Config& c, std::string_view option, int value);

// The autotuner's configs for `kernel`; nullopt when the capture found none.
std::optional<Configs> configs_of(const Task& task, std::string_view kernel, const LaunchInfo* launch);

}  // namespace tdx::autotune
