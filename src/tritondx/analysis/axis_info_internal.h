// Internals of the axis-info replay shared by axis_info*.cpp: lattice helpers (Triton's
// gcd/join/pessimistic state), per-op transfer functions and the vectorization model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/ir/mlir.h"

namespace tdx::axis {

// Triton's highestPowOf2Divisor(0): the "unknown / any" divisor (1 << 62).
inline constexpr int64_t kMaxDivisor = int64_t(1) << 62;

int64_t gcd(int64_t a, int64_t b);  // Triton's gcd: gcd(0, b) = b
int64_t gcd(int64_t a, int64_t b, int64_t c);
int64_t gcd(int64_t a, int64_t b, int64_t c, int64_t d);
int64_t highest_pow2_divisor(int64_t n);
int64_t multiply_divisor(int64_t lhs, int64_t rhs);  // saturates at kMaxDivisor

// Accessors that read a missing dimension as 1 (Triton would read out of bounds).
int64_t contiguity(const AxisInfo& a, int d);
int64_t divisibility(const AxisInfo& a, int d);
int64_t constancy(const AxisInfo& a, int d);

AxisInfo make_info(std::vector<int64_t> contiguity, std::vector<int64_t> divisibility,
                   std::vector<int64_t> constancy, std::optional<int64_t> constant = std::nullopt);
AxisInfo pessimistic(int rank);
AxisInfo optimistic(int rank);  // kMaxDivisor everywhere (ub.poison)
AxisInfo join(const AxisInfo& lhs, const AxisInfo& rhs);  // rank 0 = uninitialized
bool same(const AxisInfo& a, const AxisInfo& b);
int64_t divisibility_from_contiguity(const AxisInfo& lhs, const AxisInfo& rhs, int d);

// Rank of a value's lattice: a tensor's rank, 1 for scalars.
int lattice_rank(const MlirType& type);
// Bits of an element type name ("f16" -> 16, "i1" -> 1, "!tt.ptr<f32>" -> 64).
int element_type_bits(std::string_view element);
// Bits of what a pointer (or tensor of pointers) points at; 0 if not a pointer.
int pointee_bits(const MlirType& type);
bool is_integer_element(std::string_view element);

// `tt.divisibility = 16 : i32` or `dense<[1, 16]> : tensor<2xi32>` as Triton's
// initDimVectorFromHint reads it; nullopt if absent or unreadable.
std::optional<std::vector<int64_t>> read_hint(const MlirAttribute* attr);
void apply_hints(const MlirOp& op, AxisInfo& info);

// The operands' lattices and types as the transfer functions see them.
struct OpInputs {
  std::vector<const AxisInfo*> infos;     // one per operand (never null)
  std::vector<const MlirType*> types;     // one per operand (null if unknown)
  const MlirType* result_type = nullptr;  // first result's type (null if unknown)
};

// Triton's visitor for `op`: the lattice of its result(s), or nullopt if no visitor matches
// (the caller then uses the pessimistic state, hints included).
std::optional<AxisInfo> visit(const MlirOp& op, const OpInputs& in);

// Value names of an op's results: "%x" or "%acc#0".."%acc#8" for `%acc:9 = ...`.
std::vector<std::string> result_names(const MlirOp& op);

// Region arguments of an scf.for: the induction variable and the iter_args, parsed from
// the op text ("scf.for %iv = %lb to %ub step %s iter_args(%a = %x, ...)").
struct ForRegionArgs {
  std::string induction_var;
  std::vector<std::string> iter_args;
};
ForRegionArgs parse_for_args(const MlirOp& op);

// An op's text without its location and trailing types: "%m = arith.cmpi slt, %a, %b".
std::string op_summary(const MlirOp& op);

// The kernel argument a pointer definition is based on (`x_ptr + offs` -> "x_ptr"), or "".
std::string pointer_base(const AxisInfoAnalysis& analysis, int definition);

// The vector width of every global load/store/async copy/atomic (axis_info_vectorize.cpp).
std::vector<MemoryVectorization> analyze_memory_ops(const AxisInfoAnalysis& analysis);

}  // namespace tdx::axis
