#include "tritondx/pyast/constexpr_branches.h"

#include <algorithm>
#include <string>

namespace tdx {
namespace {

bool assigned_in(const PyNode& function, const std::string& name) {
  bool found = false;
  PyModule::walk(function, [&](const PyNode& n) {
    if (n.type == "Name" && n.str_field("id") == name && n.fields.value("ctx", "") == "Store") found = true;
  });
  return found;
}

// The integer (bools as 0/1) a constexpr parameter has in the launch.
std::optional<long long> constexpr_value(const PyNode& n, const PyNode& function, const nlohmann::json& constexprs) {
  if (n.type != "Name") return std::nullopt;
  std::string id = n.str_field("id");
  if (!constexprs.is_object() || !constexprs.contains(id) || assigned_in(function, id)) return std::nullopt;
  const auto& v = constexprs[id];
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<long long>();
  return std::nullopt;
}

// Python's floor division and modulo (the result of `//` rounds down, `%` takes the divisor's sign).
long long floor_div(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
long long floor_mod(long long a, long long b) { return a - floor_div(a, b) * b; }

// An integer expression of constexpr parameters and literals (`hd // 2`, `(N % BLOCK)`).
std::optional<long long> arithmetic_value(const PyNode& n, const PyNode& function, const nlohmann::json& constexprs,
                                          int depth = 0) {
  if (depth > 16) return std::nullopt;
  if (n.type == "Name") return constexpr_value(n, function, constexprs);
  if (n.type == "Constant") return int_constant(n);
  if (n.type == "UnaryOp" && n.fields.value("op", "") == "USub") {
    auto v = n.child("operand") ? arithmetic_value(*n.child("operand"), function, constexprs, depth + 1) : std::nullopt;
    if (v) return -*v;
    return std::nullopt;
  }
  if (n.type != "BinOp" || !n.child("left") || !n.child("right")) return std::nullopt;
  auto a = arithmetic_value(*n.child("left"), function, constexprs, depth + 1);
  auto b = arithmetic_value(*n.child("right"), function, constexprs, depth + 1);
  if (!a || !b) return std::nullopt;
  const std::string op = n.fields.value("op", "");
  if (op == "Add") return *a + *b;
  if (op == "Sub") return *a - *b;
  if (op == "Mult") return *a * *b;
  if (op == "FloorDiv" && *b != 0) return floor_div(*a, *b);
  if (op == "Mod" && *b != 0) return floor_mod(*a, *b);
  if (op == "LShift" && *b >= 0 && *b < 62) return *a << *b;
  if (op == "RShift" && *b >= 0 && *b < 62) return *a >> *b;
  return std::nullopt;
}

std::optional<bool> compare(const std::string& op, long long a, long long b) {
  if (op == "Eq") return a == b;
  if (op == "NotEq") return a != b;
  if (op == "Lt") return a < b;
  if (op == "LtE") return a <= b;
  if (op == "Gt") return a > b;
  if (op == "GtE") return a >= b;
  return std::nullopt;
}

// Constant(None): the bridge leaves out None fields, so it has no "value".
bool is_none(const PyNode& n) {
  return n.type == "Constant" && (!n.fields.is_object() || !n.fields.contains("value") || n.fields["value"].is_null());
}

void mark(const PyNode& stmt, std::set<int>& lines) {
  for (int l = stmt.line; l <= std::max(stmt.line, stmt.end_line); ++l) lines.insert(l);
}

}  // namespace

std::optional<bool> constexpr_truth(const PyNode& test, const PyNode& function, const nlohmann::json& constexprs) {
  if (test.type == "Name") {
    if (test.fields.is_object() && constexprs.is_object() && constexprs.contains(test.str_field("id")) &&
        constexprs[test.str_field("id")].is_null() && !assigned_in(function, test.str_field("id")))
      return false;  // `if X:` with X=None
    auto v = constexpr_value(test, function, constexprs);
    if (!v) return std::nullopt;
    return *v != 0;
  }
  if (test.type == "UnaryOp" && test.fields.value("op", "") == "Not") {
    const PyNode* operand = test.child("operand");
    auto v = operand ? constexpr_truth(*operand, function, constexprs) : std::nullopt;
    if (!v) return std::nullopt;
    return !*v;
  }
  if (test.type == "BoolOp") {
    const bool is_and = test.fields.value("op", "") == "And";
    bool unknown = false;
    for (const PyNode* v : test.children_in("values")) {
      auto b = constexpr_truth(*v, function, constexprs);
      if (!b) unknown = true;
      else if (*b != is_and) return *b;  // a false term of `and`, a true term of `or`, decides
    }
    if (unknown) return std::nullopt;
    return is_and;
  }
  if (test.type == "Compare") {
    auto ops = test.fields.value("ops", nlohmann::json::array());
    auto rhs = test.children_in("comparators");
    const PyNode* lhs = test.child("left");
    if (ops.size() != 1 || rhs.size() != 1 || !lhs || !ops[0].is_string()) return std::nullopt;
    const std::string op = ops[0].get<std::string>();
    if ((op == "Is" || op == "IsNot") && lhs->type == "Name" && is_none(*rhs[0])) {
      // `X is None`: a None argument is a constexpr of the launch (Triton specializes it).
      std::string id = lhs->str_field("id");
      if (!constexprs.is_object() || !constexprs.contains(id) || assigned_in(function, id)) return std::nullopt;
      return constexprs[id].is_null() == (op == "Is");
    }
    auto a = arithmetic_value(*lhs, function, constexprs);
    auto b = arithmetic_value(*rhs[0], function, constexprs);
    if (a && b) return compare(op, *a, *b);
  }
  return std::nullopt;
}

std::set<int> constexpr_dead_lines(const PyNode& function, const nlohmann::json& constexprs) {
  std::set<int> dead;
  PyModule::walk(function, [&](const PyNode& n) {
    if (n.type != "If" || !n.child("test")) return;
    auto truth = constexpr_truth(*n.child("test"), function, constexprs);
    if (!truth) return;
    for (const PyNode* stmt : n.children_in(*truth ? "orelse" : "body")) mark(*stmt, dead);
  });
  return dead;
}

}  // namespace tdx
