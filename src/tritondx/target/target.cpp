#include "tritondx/target/target.h"
#include "tritondx/core/install_paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

namespace tdx {

Expected<TargetDescription> parse_target(const nlohmann::json& j) {
  TargetDescription t;
  try {
    t.name = j.at("name").get<std::string>();
    t.card = j.value("card", t.name);
    t.device_names = j.value("device_names", std::vector<std::string>{});
    t.arch = j.at("arch").get<int>();
    t.sm_count = j.at("sm_count").get<int>();
    t.warp_size = j.value("warp_size", 32);
    t.registers_per_sm = j.at("registers_per_sm").get<int>();
    t.max_registers_per_thread = j.at("max_registers_per_thread").get<int>();
    t.register_allocation_unit = j.value("register_allocation_unit", 256);
    t.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
    t.max_warps_per_sm = j.at("max_warps_per_sm").get<int>();
    t.max_blocks_per_sm = j.at("max_blocks_per_sm").get<int>();
    t.shared_memory_per_sm = j.at("shared_memory_per_sm").get<int>();
    t.max_shared_memory_per_block = j.at("max_shared_memory_per_block").get<int>();
    t.shared_memory_allocation_unit = j.value("shared_memory_allocation_unit", 128);
    t.reserved_shared_memory_per_block = j.value("reserved_shared_memory_per_block", 0);
    t.l2_bytes = j.at("l2_bytes").get<long long>();
    const auto ceilings = j.value("ceilings", nlohmann::json::object());
    for (const auto& [k, v] : ceilings.items())
      t.ceilings[k] = Ceiling{v.at("value").get<double>(), v.value("source", "")};
  } catch (const nlohmann::json::exception& e) {
    return fail(Stage::Task, fmt::format("bad target description: {}", e.what()));
  }
  return t;
}


Expected<TargetDescription> load_target(const std::string& name) {
  auto path = targets_dir() / (name + ".json");
  std::ifstream in(path);
  if (!in) return fail(Stage::Task, "unknown target (no description file)", 0, path.string());
  try {
    return parse_target(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    return fail(Stage::Task, fmt::format("target description is not JSON: {}", e.what()), 0, path.string());
  }
}

bool describes_device(const TargetDescription& target, const std::string& device) {
  return std::find(target.device_names.begin(), target.device_names.end(), device) != target.device_names.end();
}

Expected<TargetDescription> target_for_device(const std::string& device) {
  const std::filesystem::path dir = targets_dir();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    auto t = load_target(entry.path().stem().string());
    if (t && describes_device(*t, device)) return t;
  }
  return fail(Stage::Task, fmt::format("no target description under {} names the device \"{}\"", dir.string(), device));
}

Expected<TargetDescription> target_for_measurement(const TargetDescription& chosen, const std::string& device) {
  if (device.empty() || chosen.device_names.empty() || describes_device(chosen, device)) return chosen;
  return target_for_device(device);
}

namespace {
int round_up(int v, int unit) { return unit <= 0 ? v : (v + unit - 1) / unit * unit; }
}  // namespace

Occupancy compute_occupancy(const TargetDescription& t, int num_warps, int registers_per_thread,
                            int shared_bytes_per_block) {
  Occupancy o;
  num_warps = std::max(num_warps, 1);
  constexpr int kUnlimited = std::numeric_limits<int>::max();
  o.blocks_by_warps = t.max_warps_per_sm / num_warps;
  if (registers_per_thread > 0) {
    int per_warp = round_up(registers_per_thread * t.warp_size, t.register_allocation_unit);
    int warps_by_regs = t.registers_per_sm / per_warp;
    o.blocks_by_registers = warps_by_regs / num_warps;
  } else {
    o.blocks_by_registers = kUnlimited;
  }
  if (shared_bytes_per_block > 0) {
    int per_block = round_up(shared_bytes_per_block + t.reserved_shared_memory_per_block,
                             t.shared_memory_allocation_unit);
    o.blocks_by_shared = per_block > t.max_shared_memory_per_block + t.reserved_shared_memory_per_block
                             ? 0
                             : t.shared_memory_per_sm / per_block;
  } else {
    o.blocks_by_shared = kUnlimited;
  }
  o.blocks_per_sm = std::min({o.blocks_by_warps, o.blocks_by_registers, o.blocks_by_shared, t.max_blocks_per_sm});
  // The hardware's own limits come first, so a kernel at full occupancy reads "warps".
  if (o.blocks_per_sm == o.blocks_by_warps) o.limiter = "warps";
  else if (o.blocks_per_sm == t.max_blocks_per_sm) o.limiter = "blocks";
  else if (o.blocks_per_sm == o.blocks_by_registers) o.limiter = "registers";
  else o.limiter = "shared memory";
  o.warps_per_sm = o.blocks_per_sm * num_warps;
  o.fraction = t.max_warps_per_sm ? static_cast<double>(o.warps_per_sm) / t.max_warps_per_sm : 0;
  if (o.blocks_by_registers == kUnlimited) o.blocks_by_registers = -1;
  if (o.blocks_by_shared == kUnlimited) o.blocks_by_shared = -1;
  return o;
}

void to_json(nlohmann::json& j, const Occupancy& o) {
  j = nlohmann::json{{"blocks_per_sm", o.blocks_per_sm}, {"warps_per_sm", o.warps_per_sm},
                     {"fraction", o.fraction},           {"limiter", o.limiter},
                     {"blocks_by_registers", o.blocks_by_registers},
                     {"blocks_by_shared", o.blocks_by_shared},
                     {"blocks_by_warps", o.blocks_by_warps}};
}

}  // namespace tdx
