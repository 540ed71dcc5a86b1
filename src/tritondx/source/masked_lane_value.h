// What a block expression holds on the lanes its masked loads turn off: a masked tl.load gives
// its `other` there (0 without one, as Triton lowers it; a block-pointer load with
// boundary_check its padding: 0, NaN for padding_option="nan"), and the expression's arithmetic
// carries that value along (`x * x` of a load with other=0.0 is 0, `tl.exp(x - m)` of a load with
// other=-inf is 0). A rewrite that accumulates the block elementwise across iterations (instead
// of reducing each iteration) asks whether those lanes hold the reduction's identity.
#pragma once

#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

// A lane's value: a known constant (possibly +-inf or NaN), some finite value (data the masks
// do not touch is assumed finite), or unknown.
struct LaneValue {
  enum class Kind { Constant, Finite, Unknown };
  Kind kind = Kind::Unknown;
  double value = 0;  // when Constant

  static LaneValue constant(double v) { return {Kind::Constant, v}; }
  static LaneValue finite() { return {Kind::Finite, 0}; }
  static LaneValue unknown() { return {Kind::Unknown, 0}; }
  bool is(double v) const;     // a Constant equal to v (infinities compare by sign)
  std::string str() const;     // "0", "-inf", "a finite value", "unknown"
};

struct MaskedLanes {
  std::vector<const PyNode*> loads;  // the masked (or boundary-checked) tl.load calls flowing into the expression
  bool same_mask = true;             // all of them use one mask (its conjuncts' text, through local names)
  LaneValue value;                   // the expression on the lanes that mask turns off (when same_mask)
};

// The masked loads flowing into `expr` (through local names) and its value on their masked-off lanes.
MaskedLanes masked_lanes(const KernelView& view, const PyNode& expr);

// The number a constant expression spells: 3, -1.5, float("inf"), -float('inf'), float("-inf"),
// math.inf; nullopt otherwise.
std::optional<double> float_constant(const PyNode& node);

}  // namespace tdx::l0
