// Evaluates scalar integer SSA values of a TTIR function from the launch's argument
// values: loop bounds and trip counts for the static cost model.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tritondx/ir/mlir.h"

namespace tdx {

class ScalarEvaluator {
 public:
  // `argument` maps a function argument name (without '%') to its integer value, if known.
  ScalarEvaluator(const MlirModule& module, std::function<std::optional<int64_t>(std::string_view)> argument);

  // Value of an SSA name ("%c1024_i32", "%n_elements"); program ids evaluate to 0 (the first program).
  std::optional<int64_t> value(std::string_view ssa);
  // Trip count of an scf.for op (ceil((ub - lb) / step)), if its bounds evaluate.
  std::optional<int64_t> trip_count(const MlirOp& for_op);

 private:
  std::optional<int64_t> evaluate(const MlirOp& op, int depth);
  const MlirModule& module_;
  std::function<std::optional<int64_t>(std::string_view)> argument_;
  std::unordered_map<std::string, std::optional<int64_t>> cache_;
};

}  // namespace tdx
