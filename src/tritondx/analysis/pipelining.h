// Software-pipelining status of every loop with global loads, read from the per-pass dump:
// the TTGIR before TritonGPUAssignLatencies (what the pipeliner was offered), after it
// (`tt.latency` on the loads it picked), after TritonGPUScheduleLoops (`loop.stage`,
// `tt.scheduled_max_stage`) and the final TTGIR (async copies, TMA). For a load that was
// not picked, the Triton 3.6 precondition that failed (AssignLatencies.cpp,
// PipeliningUtility.cpp): num_stages <= 1, an outer loop, a loop-carried distance > 1, no dot
// and no `tt.num_stages` on the loop, a load narrower than 32 bits, a load that feeds no dot
// A/B operand, an indirection level >= num_stages - 1, or a load inside a nested region.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/core/source_loc.h"
#include "tritondx/ir/mlir.h"
#include "tritondx/ir/pass_dump.h"

namespace tdx {

enum class PipelineBlocker {
  None,            // pipelined (the load got a latency)
  NumStages,       // the loop's num_stages (tt.num_stages or the launch option) is <= 1
  OuterLoop,       // the loop contains another loop (isOuterLoop)
  Distance,        // a yielded value is a block argument (loopHasDistGreaterThanOne)
  NoDot,           // no dot in the loop and no tt.num_stages on it (pipelineWithoutDot)
  NestedRegion,    // the load is inside an scf.if (or another region) of the loop body
  NotDotOperand,   // the loop has a dot, but the load feeds none of its A/B operands
  Narrow,          // vec * element bits < 32 (cp.async moves 4, 8 or 16 bytes)
  Indirection,     // indirection level >= num_stages - 1
  Other,           // rejected for a reason not visible in the text (shared encodings, copy width)
};

std::string_view blocker_name(PipelineBlocker blocker);

struct LoadPipelining {
  int line = 0;                 // Python line of the load (0 if outside the task file)
  SourceLoc loc;
  std::string op_name;          // "tt.load" | "tt.descriptor_load"
  int pre_op = -1;              // op index in the module before AssignLatencies
  std::optional<int> latency;   // tt.latency after AssignLatencies
  std::optional<int> stage;     // loop.stage after ScheduleLoops
  std::string became;           // final TTGIR at this line: "async-copy" | "tma" | "load" | ""
  PipelineBlocker blocker = PipelineBlocker::None;
  int element_bits = 0;
  int vec = 0;                  // elements per access (axis-info replay, else the layout); 0 = unknown
  int indirection = -1;         // level below a dot operand (0 = feeds the dot); -1 = not reached
  std::string root_argument;    // kernel argument that limits the width (axis-info replay)
};

struct LoopPipelining {
  int line = 0;                 // Python line of the scf.for
  SourceLoc loc;
  int rank = 0;                 // among loops with the same location
  int pre_op = -1;              // scf.for index in the module before AssignLatencies
  int sched_op = -1;            // scf.for index after ScheduleLoops (-1 if not found)
  int final_op = -1;            // scf.for index in the final TTGIR (-1 if not found)
  bool has_dot = false;
  std::optional<int> loop_num_stages;  // tt.num_stages written on the loop (tl.range)
  int num_stages = 0;           // what AssignLatencies used for this loop
  bool outer = false;
  int distance_yield = -1;      // scf.yield op (pre module) that yields a block argument, -1 if none
  bool scheduled = false;       // some op of the loop got loop.stage
  std::optional<int> max_stage; // tt.scheduled_max_stage
  PipelineBlocker blocker = PipelineBlocker::None;  // loop-level precondition that failed
  std::vector<LoadPipelining> loads;
};

struct PipeliningAnalysis {
  int assign_step = -1;    // step index of TritonGPUAssignLatencies
  int schedule_step = -1;  // TritonGPUScheduleLoops
  int pipeline_step = -1;  // TritonGPUPipeline
  std::optional<MlirModule> pre;    // before AssignLatencies
  std::optional<MlirModule> sched;  // after ScheduleLoops
  std::vector<LoopPipelining> loops;  // loops with at least one global tensor load in their body
};

// `final_ttgir` may be null. `default_num_stages` is the compile's num_stages option.
PipeliningAnalysis analyze_pipelining(const PassDump& dump, const MlirModule* final_ttgir, int default_num_stages,
                                      const std::string& source_file);

// Ops named `op_name` located at `line` of `source_file` in a module (e.g. async copies a
// what-if compile produced for a load's line).
int count_ops_at_line(const MlirModule& module, std::string_view op_name, int line, const std::string& source_file);

}  // namespace tdx
