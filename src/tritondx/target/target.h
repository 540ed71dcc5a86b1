// Hardware facts of one GPU (targets/<name>.json): occupancy limits and roofline ceilings.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct Ceiling {
  double value = 0;    // bytes/s or FLOP/s
  std::string source;  // "datasheet" or "measured <date> <card> <command>"
};

struct TargetDescription {
  std::string name;
  std::string card;
  std::vector<std::string> device_names;  // the names torch reports for this card ("NVIDIA H200")
  int arch = 90;
  int sm_count = 0;
  int warp_size = 32;
  int registers_per_sm = 0;
  int max_registers_per_thread = 0;
  int register_allocation_unit = 256;  // registers per warp are allocated in these units
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int shared_memory_per_sm = 0;
  int max_shared_memory_per_block = 0;
  int shared_memory_allocation_unit = 128;
  int reserved_shared_memory_per_block = 0;
  long long l2_bytes = 0;
  std::map<std::string, Ceiling> ceilings;
};

Expected<TargetDescription> parse_target(const nlohmann::json& j);
// Loads targets/<name>.json from the project (or TRITONDX_TARGETS_DIR).
Expected<TargetDescription> load_target(const std::string& name = "nvidia-h200");
// Does the target describe the card torch names `device`?
bool describes_device(const TargetDescription& target, const std::string& device);
// The target under targets/ that describes `device`; an error when none does.
Expected<TargetDescription> target_for_device(const std::string& device);
// The description a measurement on `device` is read against: `chosen` when it describes that card
// (or names no device), else the target that does; an error when none does, so no roofline is
// computed against another card's ceilings.
Expected<TargetDescription> target_for_measurement(const TargetDescription& chosen, const std::string& device);

// Theoretical occupancy of one kernel configuration.
struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double fraction = 0;  // active warps / max warps
  std::string limiter;  // "registers", "shared memory", "warps", "blocks"
  int blocks_by_registers = 0;
  int blocks_by_shared = 0;
  int blocks_by_warps = 0;
};

Occupancy compute_occupancy(const TargetDescription& target, int num_warps, int registers_per_thread,
                            int shared_bytes_per_block);

void to_json(nlohmann::json& j, const Occupancy& o);

}  // namespace tdx
