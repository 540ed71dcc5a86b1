// Top-k by repeated selection: a loop of K trips that takes the maximum of a 1-D tensor x (and
// its index), stores the maximum at an address that depends on the trip, and masks that one
// position of x with -inf. Shared by the rule l0-repeated-max-selection and the recipe
// bitonic-topk.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct RepeatedMaxSelection {
  const PyNode* loop = nullptr;        // the For statement
  std::string loop_var;                // "k"
  const PyNode* trips_expr = nullptr;  // K in range(K)
  long long trips = 0;
  std::string tensor;                  // "x"
  long long length = 0;                // x's one dimension (a power of two)
  const PyNode* max_call = nullptr;    // tl.max(x, ...) (with return_indices, or beside tl.argmax)
  const PyNode* store = nullptr;       // the Expr statement tl.store(ptr(k), m, ...)
  const PyNode* mask_out = nullptr;    // `x = tl.where(cols == i, -inf, x)`
  std::string value_name, index_name;  // m, i
};

// The selection loops of the view's kernel whose every piece matched; `rejected` collects one
// reason per loop that started like one (a max of a tensor that is then masked) but did not match.
std::vector<RepeatedMaxSelection> repeated_max_selections(const KernelView& view,
                                                          std::vector<std::string>* rejected = nullptr);

}  // namespace tdx::l0
