#include "tritondx/source/masked_lane_value.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "tritondx/source/block_index.h"

namespace tdx::l0 {
namespace {

constexpr int kMaxDepth = 48;
using Kind = LaneValue::Kind;

bool finite_like(const LaneValue& v) { return v.kind == Kind::Finite || (v.kind == Kind::Constant && std::isfinite(v.value)); }

LaneValue neg(const LaneValue& a) { return a.kind == Kind::Constant ? LaneValue::constant(-a.value) : a; }

LaneValue add(const LaneValue& a, const LaneValue& b) {
  if (a.kind == Kind::Unknown || b.kind == Kind::Unknown) return LaneValue::unknown();
  if (a.kind == Kind::Constant && b.kind == Kind::Constant) return LaneValue::constant(a.value + b.value);
  const LaneValue& c = a.kind == Kind::Constant ? a : b;  // at most one constant is left
  if (c.kind == Kind::Constant && std::isinf(c.value)) return c;  // inf + finite
  return LaneValue::finite();
}

LaneValue mul(const LaneValue& a, const LaneValue& b) {
  if (a.kind == Kind::Unknown || b.kind == Kind::Unknown) return LaneValue::unknown();
  if (a.kind == Kind::Constant && b.kind == Kind::Constant) return LaneValue::constant(a.value * b.value);
  const LaneValue& c = a.kind == Kind::Constant ? a : b;
  if (c.kind == Kind::Constant && c.value == 0) return LaneValue::constant(0);  // 0 * finite
  if (c.kind == Kind::Constant && std::isinf(c.value)) return LaneValue::unknown();  // sign unknown
  return LaneValue::finite();
}

LaneValue div(const LaneValue& a, const LaneValue& b) {
  if (a.kind == Kind::Constant && b.kind == Kind::Constant) return LaneValue::constant(a.value / b.value);
  if (finite_like(a) && b.kind == Kind::Constant && b.value != 0 && std::isfinite(b.value))
    return a.kind == Kind::Constant ? LaneValue::constant(a.value / b.value) : LaneValue::finite();
  return LaneValue::unknown();  // a finite divisor may be 0
}

LaneValue extremum(const LaneValue& a, const LaneValue& b, bool max) {
  const double absorbing = max ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  if (a.kind == Kind::Constant && b.kind == Kind::Constant)
    return LaneValue::constant(max ? std::fmax(a.value, b.value) : std::fmin(a.value, b.value));
  for (const auto* v : {&a, &b}) {
    const LaneValue& other = v == &a ? b : a;
    if (v->is(-absorbing)) return other;                                   // max(-inf, x) = x
    if (v->is(absorbing) && other.kind != Kind::Unknown) return *v;        // max(inf, x) = inf
  }
  return finite_like(a) && finite_like(b) ? LaneValue::finite() : LaneValue::unknown();
}

std::set<std::string> conjunct_texts(const KernelView& view, const PyNode& mask) {
  std::set<std::string> out;
  for (const PyNode* c : mask_conjuncts(view, mask)) out.insert(view.squashed_text(*c));
  return out;
}

class Evaluator {
 public:
  Evaluator(const KernelView& view, std::set<std::string> mask) : view_(view), mask_(std::move(mask)) {}

  LaneValue eval(const PyNode* e, int depth) const {
    if (!e || depth > kMaxDepth) return LaneValue::unknown();
    const PyNode& n = *e;
    if (auto c = float_constant(n)) return LaneValue::constant(*c);
    if (n.type == "Name") return of_name(n, depth);
    if (n.type == "Subscript") return eval(n.child("value"), depth + 1);
    if (n.type == "UnaryOp") {
      std::string op = n.fields.value("op", "");
      if (op == "USub") return neg(eval(n.child("operand"), depth + 1));
      return op == "UAdd" ? eval(n.child("operand"), depth + 1) : LaneValue::unknown();
    }
    if (n.type == "BinOp") return binop(n.fields.value("op", ""), eval(n.child("left"), depth + 1),
                                        eval(n.child("right"), depth + 1));
    if (n.type == "Call") return of_call(n, depth);
    return LaneValue::unknown();
  }

 private:
  static LaneValue binop(const std::string& op, const LaneValue& a, const LaneValue& b) {
    if (op == "Add") return add(a, b);
    if (op == "Sub") return add(a, neg(b));
    if (op == "Mult") return mul(a, b);
    if (op == "Div") return div(a, b);
    return LaneValue::unknown();
  }

  LaneValue of_name(const PyNode& n, int depth) const {
    const Definition* d = view_.definition(n);
    if (!d || d->stmt->type == "For") return LaneValue::finite();  // a parameter, global or loop counter
    return of_definition(*d, n.str_field("id"), depth);
  }

  LaneValue of_definition(const Definition& d, const std::string& name, int depth) const {
    if (!d.value || depth > kMaxDepth) return LaneValue::unknown();
    LaneValue v = eval(d.value, depth + 1);
    if (d.stmt->type != "AugAssign") return v;
    const Definition* prev = view_.definition_at(name, d.stmt->line, d.stmt->col);
    if (!prev || prev == &d) return LaneValue::unknown();
    return binop(d.stmt->fields.value("op", ""), of_definition(*prev, name, depth + 1), v);
  }

  // Is the condition false wherever the mask is (it has every conjunct of the mask)?
  bool false_on_masked_lanes(const PyNode& cond) const {
    auto c = conjunct_texts(view_, cond);
    return !mask_.empty() && std::includes(c.begin(), c.end(), mask_.begin(), mask_.end());
  }

  LaneValue of_call(const PyNode& n, int depth) const {
    const std::string name = call_name(n);
    const PyNode* a0 = argument(n, 0);
    if (name == "tl.load") {
      if (keyword(n, "boundary_check")) {  // a block pointer's out-of-bounds lanes: its padding
        const PyNode* padding = keyword(n, "padding_option");
        bool nan = padding && view_.squashed_text(*padding).find("nan") != std::string::npos;
        return LaneValue::constant(nan ? std::numeric_limits<double>::quiet_NaN() : 0.0);
      }
      if (!KernelView::mask_arg(n)) return LaneValue::finite();
      const PyNode* other = KernelView::other_arg(n);
      return other ? eval(other, depth + 1) : LaneValue::constant(0);
    }
    if (name == "tl.multiple_of" || name == "tl.max_contiguous" || name == "tl.max_constancy" || name == "tl.cast")
      return eval(a0, depth + 1);
    if (const PyNode* f = n.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
      return eval(f->child("value"), depth + 1);
    if (name == "tl.exp" || name == "tl.math.exp" || name == "tl.exp2" || name == "tl.math.exp2") {
      LaneValue v = eval(a0, depth + 1);
      if (v.kind != Kind::Constant) return v;
      return LaneValue::constant(name.ends_with("exp2") ? std::exp2(v.value) : std::exp(v.value));
    }
    if (name == "tl.abs" || name == "tl.math.abs") {
      LaneValue v = eval(a0, depth + 1);
      return v.kind == Kind::Constant ? LaneValue::constant(std::fabs(v.value)) : v;
    }
    if ((name == "tl.maximum" || name == "tl.minimum") && n.children_in("args").size() == 2)
      return extremum(eval(a0, depth + 1), eval(argument(n, 1), depth + 1), name == "tl.maximum");
    if (name == "tl.where" && n.children_in("args").size() == 3) {
      LaneValue b = eval(argument(n, 2), depth + 1);
      if (false_on_masked_lanes(*a0)) return b;
      LaneValue a = eval(argument(n, 1), depth + 1);
      if (a.kind == Kind::Constant && b.kind == Kind::Constant && a.value == b.value) return a;
      return finite_like(a) && finite_like(b) ? LaneValue::finite() : LaneValue::unknown();
    }
    if (name == "tl.sum" || name == "tl.max" || name == "tl.min" || name == "tl.program_id" || name == "tl.arange" ||
        name == "tl.num_programs")
      return LaneValue::finite();  // the same for every lane, or an index
    return LaneValue::unknown();
  }

  const KernelView& view_;
  std::set<std::string> mask_;
};

}  // namespace

bool LaneValue::is(double v) const { return kind == Kind::Constant && value == v; }

std::string LaneValue::str() const {
  if (kind == Kind::Finite) return "a finite value";
  if (kind == Kind::Unknown) return "an unknown value";
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{}", value);
}

std::optional<double> float_constant(const PyNode& node) {
  if (auto v = number_constant(node)) return v;
  if (node.type == "UnaryOp" && node.fields.value("op", "") == "USub")
    if (const PyNode* operand = node.child("operand"))
      if (auto v = float_constant(*operand)) return -*v;
  if (node.type == "Attribute" && dotted_name(node) == "math.inf") return std::numeric_limits<double>::infinity();
  if (node.type == "Call" && call_name(node) == "float" && node.children_in("args").size() == 1) {
    const PyNode* a = argument(node, 0);
    auto it = a->fields.find("value");
    if (a->type != "Constant" || it == a->fields.end() || !it->is_string()) return std::nullopt;
    std::string s = it->get<std::string>();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "inf" || s == "+inf" || s == "infinity") return std::numeric_limits<double>::infinity();
    if (s == "-inf" || s == "-infinity") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return std::nullopt;
}

MaskedLanes masked_lanes(const KernelView& view, const PyNode& expr) {
  MaskedLanes out;
  std::set<std::string> mask;
  view.visit_flow(expr, [&](const PyNode& n) {
    if (n.type != "Call" || call_name(n) != "tl.load") return true;
    const PyNode* check = keyword(n, "boundary_check");
    if (const PyNode* m = check ? check : KernelView::mask_arg(n)) {
      auto texts = check ? std::set<std::string>{"boundary_check=" + view.squashed_text(*check)} : conjunct_texts(view, *m);
      if (out.loads.empty()) mask = texts;
      else if (texts != mask) out.same_mask = false;
      out.loads.push_back(&n);
    }
    return true;
  });
  if (out.loads.empty()) {
    out.value = LaneValue::finite();
    return out;
  }
  out.value = out.same_mask ? Evaluator(view, mask).eval(&expr, 0) : LaneValue::unknown();
  return out;
}

}  // namespace tdx::l0
