#include "tritondx/analysis/scalar_eval.h"

#include <charconv>

namespace tdx {

ScalarEvaluator::ScalarEvaluator(const MlirModule& module,
                                 std::function<std::optional<int64_t>(std::string_view)> argument)
    : module_(module), argument_(std::move(argument)) {}

namespace {

std::optional<int64_t> parse_int(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data()) {
    if (s.substr(0, 4) == "true") return 1;
    if (s.substr(0, 5) == "false") return 0;
    return std::nullopt;
  }
  return v;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::optional<int64_t> ScalarEvaluator::value(std::string_view ssa) {
  std::string key(ssa);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  std::optional<int64_t> result;
  if (const MlirOp* op = module_.defining_op(ssa)) {
    cache_[key] = std::nullopt;  // cycle guard
    result = evaluate(*op, 0);
  } else if (ssa.size() > 1 && ssa[0] == '%') {
    for (const auto& f : module_.functions)
      for (const auto& a : f.arguments)
        if (a.name == ssa) result = argument_(ssa.substr(1));
  }
  cache_[key] = result;
  return result;
}

std::optional<int64_t> ScalarEvaluator::evaluate(const MlirOp& op, int depth) {
  if (depth > 64 || op.result_types.empty() || op.result_types.front().is_tensor) return std::nullopt;
  const auto& n = op.name;
  if (n == "arith.constant") {
    const auto* v = op.attribute("value");
    return v ? parse_int(v->value) : std::nullopt;
  }
  if (n == "tt.get_program_id") return 0;
  if (n == "tt.get_num_programs") return std::nullopt;
  auto operand = [&](size_t i) -> std::optional<int64_t> {
    return i < op.operands.size() ? value(op.operands[i]) : std::nullopt;
  };
  if (n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci" || n == "arith.index_cast" ||
      n == "arith.index_castui" || n == "arith.bitcast")
    return operand(0);
  auto a = operand(0);
  auto b = operand(1);
  if (!a || !b) return std::nullopt;
  if (n == "arith.addi") return *a + *b;
  if (n == "arith.subi") return *a - *b;
  if (n == "arith.muli") return *a * *b;
  if ((n == "arith.divsi" || n == "arith.divui") && *b != 0) return *a / *b;
  if (n == "arith.floordivsi" && *b != 0) return floor_div(*a, *b);
  if (n == "arith.ceildivsi" && *b != 0) return -floor_div(-*a, *b);
  if ((n == "arith.remsi" || n == "arith.remui") && *b != 0) return *a % *b;
  if (n == "arith.maxsi" || n == "arith.maxui") return std::max(*a, *b);
  if (n == "arith.minsi" || n == "arith.minui") return std::min(*a, *b);
  if (n == "arith.andi") return *a & *b;
  if (n == "arith.ori") return *a | *b;
  if (n == "arith.shli") return *a << *b;
  if (n == "arith.shrsi" || n == "arith.shrui") return *a >> *b;
  return std::nullopt;
}

std::optional<int64_t> ScalarEvaluator::trip_count(const MlirOp& for_op) {
  if (for_op.name != "scf.for" || for_op.operands.size() < 3) return std::nullopt;
  auto lb = value(for_op.operands[0]);
  auto ub = value(for_op.operands[1]);
  auto step = value(for_op.operands[2]);
  if (!lb || !ub || !step || *step <= 0) return std::nullopt;
  if (*ub <= *lb) return 0;
  return (*ub - *lb + *step - 1) / *step;
}

}  // namespace tdx
