// Nsight Compute results for one kernel launch, parsed from ncu's CSV exports
// (`--page details`, `--page raw`, `--page source --print-source sass`), and the hot
// source lines they imply through the SASS line info.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"
#include "tritondx/ir/llvm_ir.h"
#include "tritondx/ir/sass.h"

namespace tdx {

struct NcuMetric {
  std::string section;  // "GPU Speed Of Light Throughput"
  std::string name;     // "DRAM Throughput"
  std::string unit;     // "%"
  double value = 0;     // parsed number (thousands separators removed); NaN if not numeric
  std::string text;     // as printed

  double si() const;    // value in base units (bytes, seconds, Hz, bytes/s): "Mbyte" 211 -> 2.11e8
};

struct NcuRuleResult {
  std::string section;
  std::string rule;         // "SOLBottleneck", "UncoalescedGlobalAccess", ...
  std::string type;         // "OPT", "WRN", "INF"
  std::string description;
  std::string speedup_type; // "local" | "global"
  double estimated_speedup = 0;  // percent, as ncu reports it
};

// One SASS instruction of the source page with its samples and memory counters.
struct NcuSourceInstruction {
  uint32_t address = 0;               // offset from the kernel's first instruction (= SassInstruction::offset)
  uint64_t absolute_address = 0;      // as ncu prints it (where the code was loaded)
  std::string sass;
  long long samples = 0;              // warp stall samples (all)
  long long samples_not_issued = 0;
  std::map<std::string, long long> stalls;  // "long_sb" -> samples (stall_* columns)
  long long instructions_executed = 0;
  long long l2_sectors = 0, l2_sectors_ideal = 0, l2_sectors_excessive = 0;        // global
  long long shared_wavefronts = 0, shared_wavefronts_ideal = 0, shared_wavefronts_excessive = 0;
};

struct NcuProfile {
  std::string kernel;
  std::string block_size, grid_size;
  std::vector<NcuMetric> metrics;
  std::vector<NcuRuleResult> rules;
  std::map<std::string, double> raw;  // raw page: metric name -> value (numeric ones only, as printed)
  std::map<std::string, std::string> raw_units;  // raw page: metric name -> unit ("Mbyte", "%", ...)
  std::vector<NcuSourceInstruction> source;

  const NcuMetric* metric(std::string_view section, std::string_view name) const;
  std::optional<double> value(std::string_view section, std::string_view name) const;
  std::optional<double> raw_value(std::string_view name) const;
  // The raw value in base units (bytes, seconds, ...), see ncu_unit_scale.
  std::optional<double> raw_si(std::string_view name) const;
  // NCU rule results of a given rule name (a rule may report several, e.g. loads and stores).
  std::vector<const NcuRuleResult*> rule_results(std::string_view rule) const;
  long long total_samples() const;  // sum of the source page's warp stall samples
};

// Factor from an ncu unit to its base unit: "Kbyte" 1e3, "Mbyte/s" 1e6, "us" 1e-6, "Ghz" 1e9,
// "%" 1; unknown units 1.
double ncu_unit_scale(std::string_view unit);
// A number as ncu prints it: "339,484" -> 339484, "1.5" -> 1.5; NaN for "n/a", "" and text.
double parse_ncu_number(std::string_view text);

// Each parser fills its part of `profile`; errors name the page and the CSV line.
Expected<void> parse_ncu_details_csv(std::string_view csv, NcuProfile& profile);
Expected<void> parse_ncu_raw_csv(std::string_view csv, NcuProfile& profile);
Expected<void> parse_ncu_source_csv(std::string_view csv, NcuProfile& profile);

// Stall samples per Python source line, through the SASS line table (by address).
struct HotLine {
  SourceLoc loc;
  long long samples = 0;
  double fraction = 0;  // of all samples of the kernel
  std::string dominant_stall;  // largest stall reason but "selected"/"not_selected": "long_sb", "barrier", ...
  double dominant_fraction = 0;  // its samples / this line's samples
  std::map<std::string, long long> stalls;
  long long l2_sectors = 0, l2_sectors_excessive = 0;
  long long shared_wavefronts = 0, shared_wavefronts_excessive = 0;
  std::vector<uint32_t> addresses;  // SASS offsets of the line's instructions, ascending
  long long inlined_samples = 0;    // samples of instructions located in an inlined helper
                                    // (e.g. triton/language/standard.py for tl.max) called here
};

// How the source page's instructions line up with the SASS listing (same cubin expected).
struct SassAlignment {
  int matched = 0;     // same offset, same opcode
  int mismatched = 0;  // same offset, different opcode
  int missing = 0;     // offset not in the listing
  bool ok() const { return matched > 0 && mismatched + missing <= matched / 20; }  // <= 5% off
};
SassAlignment check_sass_alignment(const NcuProfile& profile, const SassModule& sass);

// Sorted by samples, descending. Instructions without line info are left out, and so are
// instructions whose opcode differs from the listing's at that offset (a different build).
// With `llir`, instructions located in an inlined helper (Triton's standard.py for tl.max,
// tl.sum, ...) count for the source line that called it, through the DILocation inlinedAt
// chain; without it they are left out.
std::vector<HotLine> attribute_hot_lines(const NcuProfile& profile, const SassModule& sass,
                                         const std::string& source_file, const LlvmModule* llir = nullptr);

void to_json(nlohmann::json& j, const HotLine& h);

}  // namespace tdx
