// The facts `tritondx inspect` reports for one compiled kernel.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/source_loc.h"
#include "tritondx/ir/program.h"
#include "tritondx/target/target.h"

namespace tdx {

// One global load or store of the TTGIR with what it became in PTX.
struct MemoryAccess {
  SourceLoc loc;
  std::string kind;            // "load" | "store" | "async-copy" (cp.async into shared memory)
  std::string ttgir_op;        // the TTGIR line (trimmed)
  std::string element;         // "f32", "f16"
  int elements_per_thread = 0; // sizePerThread along the fastest dimension of its layout
  int ptx_instructions = 0;    // ld.global/st.global instructions on that source line
  std::map<int, int> ptx_bits; // access width in bits -> instruction count
  bool masked = false;         // the TTGIR op has a mask operand
};

struct DotInfo {
  SourceLoc loc;
  std::string mma;     // "wgmma" | "mma.sync" | "fma"
  std::string a_type;  // operand element types
  std::string b_type;
  std::string acc_type;
  std::vector<int64_t> shape;  // M, N of the result
  std::string ttgir_op;
};

struct LayoutConversion {
  SourceLoc loc;
  std::string from;  // source encoding (alias or text)
  std::string to;
  int64_t bytes = 0;  // tensor bytes per CTA
  bool in_loop = false;
  std::string ttgir_op;
};

struct LoopInfo {
  SourceLoc loc;
  int depth = 0;
  int async_copies = 0;  // ttg.async_copy_global_to_local in its body
  int tma_loads = 0;     // TMA loads in its body
  int dots = 0;
  int num_stages_attr = 0;  // tt.num_stages on the loop (0 if absent)
  bool pipelined = false;   // has async copies/TMA or loop.stage attributes
};

struct KernelSummary {
  std::string name;
  KernelResources resources;
  Occupancy occupancy;
  std::vector<MemoryAccess> memory;
  std::vector<DotInfo> dots;
  std::vector<LayoutConversion> conversions;
  std::vector<LoopInfo> loops;
  std::map<std::string, int> ptx_classes;   // instruction class -> count (whole kernel)
  std::map<std::string, int> sass_classes;
  int async_copies_ptx = 0;  // cp.async
  int tma_ptx = 0;           // cp.async.bulk.tensor
  int wgmma_ptx = 0;
  int mma_sync_ptx = 0;
  std::vector<std::string> remarks;  // "line:col: message"
  std::vector<std::string> problems; // stages that failed to parse
};

KernelSummary summarize(const Program& program, const TargetDescription& target);

void to_json(nlohmann::json& j, const MemoryAccess& m);
void to_json(nlohmann::json& j, const DotInfo& d);
void to_json(nlohmann::json& j, const LayoutConversion& c);
void to_json(nlohmann::json& j, const LoopInfo& l);
void to_json(nlohmann::json& j, const KernelSummary& s);

// Encoding of a TTGIR tensor type, described briefly: "blocked spt=[4] tpw=[32] wpc=[4]".
std::string describe_layout(const MlirModule& module, const std::string& encoding);

}  // namespace tdx
