// Def-use and loop structure over a parsed TTIR/TTGIR module: the questions L3 rules ask
// about a snapshot (who uses this value, which loop holds this op, what an scf.for carries).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tritondx/core/source_loc.h"
#include "tritondx/ir/mlir.h"

namespace tdx {

// "%acc#0" -> "%acc": the SSA value a multi-result use refers to.
std::string_view value_base(std::string_view value);

// Users of every SSA value of one module (op indices, in op order, each once per operand).
class ValueUses {
 public:
  explicit ValueUses(const MlirModule& module);
  const std::vector<int>& users(std::string_view value) const;

 private:
  std::unordered_map<std::string, std::vector<int>> users_;
};

// One scf.for with its block arguments, read from the op's text:
// `%r:2 = scf.for %iv = %lb to %ub step %s iter_args(%a = %x, %b = %y) -> (...)`.
struct ForLoop {
  int op = -1;
  std::string induction;               // "%k"
  std::vector<std::string> iter_args;  // "%arg10", "%a_ptrs_48"
  std::vector<std::string> inits;      // the init operand of each iter_arg
  int yield = -1;                      // the loop body's scf.yield (op index), -1 if not found
};

std::optional<ForLoop> for_loop(const MlirModule& module, int op);

// True when `op` sits (at any depth) inside the region of `ancestor`.
bool is_nested_in(const MlirModule& module, int op, int ancestor);
// The innermost scf.for around `op`, -1 if none.
int enclosing_for(const MlirModule& module, int op);
// Every scf.for of the module, in op order.
std::vector<int> for_loops(const MlirModule& module);
// An scf.for or scf.while directly in the body of `for_op` (Triton's isOuterLoop).
bool has_inner_loop(const MlirModule& module, int for_op);
// Ops of the loop body, direct children only (nested region ops are included, their bodies not).
std::vector<int> loop_body(const MlirModule& module, int for_op);

// The Python line an op is about: its own location when that is in `source_file`, else the
// call site of an inlined helper when that is; 0 otherwise.
int source_line(const MlirOp& op, const std::string& source_file);

// Loops are matched across snapshots by their source line and their rank among the loops
// with that line (a copy of the same loop keeps both).
int loop_rank(const MlirModule& module, int for_op);
int find_loop(const MlirModule& module, const SourceLoc& loc, int rank);

// The memory read (tt.load, ttg.local_load, tt.descriptor_load) whose result flows into `value`
// through the ops defining it, nearest first; nullptr when `value` is computed from arguments,
// program ids and constants alone (a block argument ends a path).
const MlirOp* loaded_source(const MlirModule& module, std::string_view value);

// The mask operand of a tt.load, tt.store or ttg.async_copy_global_to_local; empty when it has none.
std::string_view mask_operand(const MlirOp& op);

// The op text without its trailing `loc(...)` and indentation: what evidence quotes.
std::string op_quote(const MlirOp& op);

// Bit width of a scalar MLIR element type name ("f16" -> 16, "f8E4M3FN" -> 8); 0 if unknown.
int element_type_bits(std::string_view element);

}  // namespace tdx
