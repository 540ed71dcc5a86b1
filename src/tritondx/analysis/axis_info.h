// Axis-info replay: Triton 3.6's AxisInfo analysis (contiguity, divisibility, constancy per
// dimension, plus constant values) re-run in C++ over TTIR/TTGIR text, and the load/store
// vector width it implies (Coalesce + LoadStoreOpToLLVM rules).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tritondx/ir/mlir.h"

namespace tdx {

// The lattice of one SSA value (see triton/Analysis/AxisInfo.h for worked examples).
struct AxisInfo {
  std::vector<int64_t> contiguity;    // per dim: length of runs of contiguous (+1) values
  std::vector<int64_t> divisibility;  // per dim: largest power of two dividing each run's first value
  std::vector<int64_t> constancy;     // per dim: length of runs of equal values
  std::optional<int64_t> constant_value;
  int rank() const { return static_cast<int>(contiguity.size()); }
};

// What the vectorizer will do with one global memory op, and why.
struct MemoryVectorization {
  int op_index = -1;          // index into MlirModule::ops (tt.load / tt.store / async copy)
  std::string kind;           // "load" | "store" | "async-copy" | "atomic"
  int element_bits = 0;
  int predicted_vec = 1;      // elements per access Triton will emit
  int max_vec = 1;            // 128 / element_bits: the widest possible
  int64_t contiguity = 1;     // of the pointer along its fastest dimension
  int64_t divisibility = 1;   // of the pointer, in elements
  int64_t mask_constancy = 0; // of the mask along the fastest dimension (0 = no mask)
  std::string limited_by;     // "none" | "contiguity" | "alignment" | "mask" | "layout"
  int culprit_op = -1;        // first op on the def chain where the limiting property was lost
  std::string explanation;    // one sentence naming the culprit op and its source line
  // Details of the replay behind the numbers above.
  int order0 = 0;             // the fastest dimension (layout order[0], or by contiguity in TTIR)
  int64_t layout_vec = 0;     // contiguous elements per thread from the layout (TTGIR) or the
                              // sizePerThread Coalesce would pick (TTIR); 0 = unknown layout
  std::string property;       // lattice property that was lost: "contiguity" | "divisibility" | "constancy"
  std::string culprit_value;  // the culprit op's result whose property is too small
  std::string root_argument;  // kernel argument at the root of the loss (no '%'), e.g. "n_elements"
  std::string root_note;      // why the root limits it, e.g. "n_elements has no tt.divisibility = 16"
  // When the pointer limits the width and the mask would limit it too (a row stride and a
  // column bound, neither a multiple of 16): the kernel argument at the root of the mask's loss.
  std::string mask_root_argument;
};

// "contiguity = [1024], divisibility = [1024], constancy = [1], constant_value = <none>"
std::string format_axis_info(const AxisInfo& info);

class AxisInfoAnalysis {
 public:
  // One SSA definition. Printed names can repeat across sibling regions (Triton names the
  // values of each loop alike), so a value is its definition, and uses are resolved by scope.
  struct Definition {
    std::string name;           // "%offs_2", "%acc#1"
    int op = -1;                // defining op (index into MlirModule::ops); -1 for block arguments
    int result = 0;             // result number of that op
    int region_owner = -1;      // block arguments: the scf.for owning them; -1 = function argument
    int region_arg = -1;        // scf.for: -1 = induction variable, k = iter_args[k]
    const MlirType* type = nullptr;
    AxisInfo info;
  };

  // Runs over every function of a TTIR or TTGIR module. Unknown ops get the pessimistic state.
  static AxisInfoAnalysis run(const MlirModule& module);

  // The lattice of a value by name (its first definition when the name repeats).
  const AxisInfo* get(std::string_view ssa_value) const;
  const MlirModule& module() const { return *module_; }
  // One entry per global load/store/async copy, in op order.
  const std::vector<MemoryVectorization>& memory_ops() const { return memory_; }
  // Lattice of every value, one line each, like Triton's test-print-alignment pass:
  // "%offs_2: contiguity = [1024], divisibility = [1024], constancy = [1], constant_value = <none>"
  std::string print() const;
  // Every definition in order (function arguments, op results, region arguments).
  const std::vector<Definition>& definitions() const { return defs_; }
  // The definition operand k of op `op_index` refers to (-1 if unknown), and its lattice.
  int operand_definition(int op_index, size_t k) const;
  const AxisInfo* operand(int op_index, size_t k) const;
  // Value names in definition order, and the type of a value by name (first definition).
  const std::vector<std::string>& values() const { return order_; }
  const MlirType* type_of(std::string_view ssa_value) const;

 private:
  const MlirModule* module_ = nullptr;
  std::vector<Definition> defs_;
  std::vector<std::vector<int>> operand_defs_;   // per op: definition of each operand
  std::unordered_map<std::string, int> first_def_;  // name -> first definition
  std::vector<std::string> order_;
  std::vector<MemoryVectorization> memory_;
  friend class AxisInfoBuilder;
};

}  // namespace tdx
