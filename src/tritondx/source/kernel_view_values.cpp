// KernelView's value inference: the constant value, value range, shape and root name of a
// kernel expression, and loop ranges and trip counts (kernel_view.h).
#include "tritondx/source/kernel_view.h"

#include "tritondx/source/program_ids.h"

#include <algorithm>
#include <limits>

namespace tdx::l0 {

namespace {

// a + b etc. with overflow detection.
std::optional<long long> checked(__int128 v) {
  if (v > std::numeric_limits<long long>::max() || v < std::numeric_limits<long long>::min()) return std::nullopt;
  return static_cast<long long>(v);
}

std::optional<Range> corners(Range a, Range b, auto op) {
  std::optional<long long> lo, hi;
  for (long long x : {a.lo, a.hi})
    for (long long y : {b.lo, b.hi}) {
      auto v = checked(op(static_cast<__int128>(x), static_cast<__int128>(y)));
      if (!v) return std::nullopt;
      lo = lo ? std::min(*lo, *v) : *v;
      hi = hi ? std::max(*hi, *v) : *v;
    }
  return Range{*lo, *hi};
}

std::optional<std::vector<long long>> broadcast(std::vector<long long> a, const std::vector<long long>& b) {
  if (a.size() < b.size()) a.insert(a.begin(), b.size() - a.size(), 1);
  size_t off = a.size() - b.size();
  for (size_t i = 0; i < b.size(); ++i) {
    long long& x = a[off + i];
    if (x == b[i] || b[i] == 1) continue;
    if (x == 1) x = b[i];
    else return std::nullopt;
  }
  return a;
}

bool is_elementwise(std::string_view name) {
  static const std::set<std::string, std::less<>> kNames = {
      "tl.exp", "tl.exp2", "tl.log", "tl.log2", "tl.sqrt", "tl.sqrt_rn", "tl.rsqrt", "tl.abs", "tl.sigmoid",
      "tl.cos", "tl.sin", "tl.erf", "tl.floor", "tl.ceil", "tl.fma", "tl.maximum", "tl.minimum", "tl.where",
      "tl.clamp", "tl.fdiv", "tl.div_rn", "tl.cast", "tl.math.exp", "tl.math.exp2", "tl.math.log",
      "tl.math.log2", "tl.math.rsqrt", "tl.math.sqrt", "tl.math.abs", "tl.math.div_rn", "tl.math.floor",
      "tl.math.ceil", "tl.math.fma", "tl.softmax", "tl.umulhi"};
  return kNames.contains(name);
}

bool is_hint(std::string_view name) {
  return name == "tl.multiple_of" || name == "tl.max_contiguous" || name == "tl.max_constancy";
}

bool is_range_call(std::string_view name) {
  return name == "range" || name == "tl.range" || name == "tl.static_range";
}

}  // namespace

std::optional<Range> KernelView::loop_range(const PyNode& for_stmt) const {
  const PyNode* iter = for_stmt.child("iter");
  if (!iter || iter->type != "Call" || !is_range_call(call_name(*iter))) return std::nullopt;
  auto args = iter->children_in("args");
  std::optional<Range> start = Range{0, 0}, end, step = Range{1, 1};
  if (args.size() == 1) {
    end = range(*args[0]);
  } else if (args.size() >= 2) {
    start = range(*args[0]);
    end = range(*args[1]);
    if (args.size() >= 3) step = range(*args[2]);
  }
  if (!start || !end || !step || !start->is_point() || !step->is_point() || step->lo <= 0)
    return pinned_pid_ ? std::nullopt : loop_range_over_programs(for_stmt);  // bounds that depend on the program id
  if (end->hi <= start->lo) return std::nullopt;
  long long last = start->lo + ((end->hi - start->lo - 1) / step->lo) * step->lo;
  return Range{start->lo, last};
}

std::optional<long long> KernelView::trip_count(const PyNode& for_stmt) const {
  const PyNode* iter = for_stmt.child("iter");
  auto r = loop_range(for_stmt);
  if (!r || !iter) return std::nullopt;
  auto args = iter->children_in("args");
  long long step = 1;
  if (args.size() >= 3) {
    auto s = value(*args[2]);
    if (!s) return std::nullopt;
    step = *s;
  }
  return (r->hi - r->lo) / step + 1;
}

std::optional<Range> KernelView::range(const PyNode& expr) const { return range_impl(expr, 0); }

std::optional<long long> KernelView::value(const PyNode& expr) const {
  auto r = range(expr);
  return r && r->is_point() ? std::optional<long long>(r->lo) : std::nullopt;
}

std::optional<Range> KernelView::range_impl(const PyNode& e, int depth) const {
  if (depth > kMaxExpressionDepth) return std::nullopt;
  auto sub = [&](const PyNode* n) -> std::optional<Range> { return n ? range_impl(*n, depth + 1) : std::nullopt; };
  if (e.type == "Constant") {
    auto it = e.fields.find("value");
    if (it == e.fields.end()) return std::nullopt;
    if (it->is_boolean()) return Range{it->get<bool>() ? 1 : 0, it->get<bool>() ? 1 : 0};
    if (it->is_number_integer()) return Range{it->get<long long>(), it->get<long long>()};
    return std::nullopt;
  }
  if (e.type == "Name") {
    if (const Definition* d = definition(e)) {
      if (d->stmt->type == "For") return loop_range(*d->stmt);
      if (d->stmt->type == "AugAssign" || !d->value) return std::nullopt;
      return sub(d->value);
    }
    std::string name = e.str_field("id");
    if (is_param(name)) {
      if (auto v = ctx_->launch ? ctx_->launch->int_arg(name) : std::nullopt) return Range{*v, *v};
      return std::nullopt;
    }
    if (auto v = global_constant(name)) return Range{*v, *v};
    return std::nullopt;
  }
  if (e.type == "UnaryOp" && e.fields.value("op", "") == "USub") {
    auto r = sub(e.child("operand"));
    if (!r) return std::nullopt;
    return Range{-r->hi, -r->lo};
  }
  if (e.type == "Subscript") return sub(e.child("value"));  // x[:, None] keeps the values
  if (e.type == "BinOp") {
    auto a = sub(e.child("left"));
    auto b = sub(e.child("right"));
    if (!a || !b) return std::nullopt;
    std::string op = e.fields.value("op", "");
    if (op == "Add") return corners(*a, *b, [](__int128 x, __int128 y) { return x + y; });
    if (op == "Sub") return corners(*a, *b, [](__int128 x, __int128 y) { return x - y; });
    if (op == "Mult") return corners(*a, *b, [](__int128 x, __int128 y) { return x * y; });
    if (op == "LShift" && b->lo >= 0 && b->hi < 62)
      return corners(*a, *b, [](__int128 x, __int128 y) { return x << static_cast<int>(y); });
    if ((op == "FloorDiv" || op == "RShift") && a->lo >= 0 && b->lo > 0) {
      if (op == "RShift") return b->hi < 62 ? std::optional<Range>(Range{a->lo >> b->hi, a->hi >> b->lo}) : std::nullopt;
      return Range{a->lo / b->hi, a->hi / b->lo};
    }
    if (op == "Mod" && a->lo >= 0 && b->lo > 0) {
      if (a->is_point() && b->is_point()) return Range{a->lo % b->lo, a->lo % b->lo};
      if (a->hi < b->lo) return a;
      return Range{0, std::min(a->hi, b->hi - 1)};
    }
    return std::nullopt;
  }
  if (e.type == "Call") {
    std::string name = call_name(e);
    const PyNode* a0 = argument(e, 0);
    const PyNode* a1 = argument(e, 1);
    if (name == "tl.num_programs" || normalize_triton_name(name) == "tl.program_id" || is_program_id_helper(name)) {
      const PyNode* axis_node = a0 ? a0 : keyword(e, "axis");
      auto axis = axis_node ? int_constant(*axis_node) : std::optional<long long>(0);
      if (!axis || !ctx_->launch) return std::nullopt;
      long long g = *axis < static_cast<long long>(ctx_->launch->grid.size()) ? ctx_->launch->grid[*axis] : 1;
      g = std::max<long long>(g, 1);
      if (name == "tl.num_programs") return Range{g, g};
      if (pinned_pid_ && *axis >= 0 && *axis < 3) return Range{(*pinned_pid_)[*axis], (*pinned_pid_)[*axis]};
      return Range{0, g - 1};
    }
    if (name == "tl.arange") {
      auto s = sub(a0), t = sub(a1);
      if (!s || !t || !s->is_point() || !t->is_point() || t->lo <= s->lo) return std::nullopt;
      return Range{s->lo, t->lo - 1};
    }
    if (name == "tl.cdiv" || name == "triton.cdiv") {
      auto a = sub(a0), b = sub(a1);
      if (!a || !b || a->lo < 0 || b->lo <= 0) return std::nullopt;
      return Range{(a->lo + b->hi - 1) / b->hi, (a->hi + b->lo - 1) / b->lo};
    }
    if (name == "triton.next_power_of_2") {
      auto a = sub(a0);
      if (!a || a->lo < 1) return std::nullopt;
      return Range{next_pow2(a->lo), next_pow2(a->hi)};
    }
    if (name == "tl.minimum" || name == "min" || name == "tl.maximum" || name == "max") {
      auto a = sub(a0), b = sub(a1);
      if (!a || !b) return std::nullopt;
      bool lower = name == "tl.minimum" || name == "min";
      return lower ? Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)}
                   : Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    if (is_hint(name) || name == "tl.cast" || name == "int") return sub(a0);
    if (const PyNode* f = e.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
      return sub(f->child("value"));
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::vector<long long>> KernelView::shape(const PyNode& expr) const { return shape_impl(expr, 0); }

std::optional<std::vector<long long>> KernelView::shape_impl(const PyNode& e, int depth) const {
  using Shape = std::vector<long long>;
  if (depth > kMaxExpressionDepth) return std::nullopt;
  auto sub = [&](const PyNode* n) -> std::optional<Shape> { return n ? shape_impl(*n, depth + 1) : std::nullopt; };
  auto all = [&](const std::vector<const PyNode*>& nodes) -> std::optional<Shape> {
    Shape out;
    for (const PyNode* n : nodes) {
      auto s = sub(n);
      if (!s) return std::nullopt;
      auto b = broadcast(out, *s);
      if (!b) return std::nullopt;
      out = *b;
    }
    return out;
  };
  auto dims = [&](const PyNode* n) -> std::optional<Shape> {  // a shape argument: (A, B) or [A, B] or A
    if (!n) return std::nullopt;
    Shape out;
    std::vector<const PyNode*> elts = (n->type == "Tuple" || n->type == "List") ? n->children_in("elts")
                                                                                : std::vector<const PyNode*>{n};
    for (const PyNode* x : elts) {
      auto v = value(*x);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  };
  if (e.type == "Constant") return Shape{};
  if (e.type == "Name") {
    if (const Definition* d = definition(e)) {
      if (d->stmt->type == "For") return Shape{};
      if (d->stmt->type == "AugAssign") {
        const PyNode* target = d->stmt->child("target");
        return target && target != &e ? sub(target) : std::nullopt;
      }
      return sub(d->value);
    }
    return Shape{};  // a parameter or a global: a scalar
  }
  if (e.type == "BinOp") return all({e.child("left"), e.child("right")});
  if (e.type == "Compare") {
    auto nodes = e.children_in("comparators");
    nodes.push_back(e.child("left"));
    return all(nodes);
  }
  if (e.type == "BoolOp") return all(e.children_in("values"));
  if (e.type == "UnaryOp") return sub(e.child("operand"));
  if (e.type == "IfExp") return all({e.child("body"), e.child("orelse")});
  if (e.type == "Attribute") {
    if (e.str_field("attr") == "T") {
      auto s = sub(e.child("value"));
      if (s) std::reverse(s->begin(), s->end());
      return s;
    }
    return std::nullopt;
  }
  if (e.type == "Subscript") {
    auto base = sub(e.child("value"));
    const PyNode* slice = e.child("slice");
    if (!base || !slice) return std::nullopt;
    std::vector<const PyNode*> elts = slice->type == "Tuple" ? slice->children_in("elts") : std::vector<const PyNode*>{slice};
    Shape out;
    size_t next = 0;
    for (const PyNode* x : elts) {
      // The bridge omits None-valued fields: Constant(None) has no "value".
      if (x->type == "Constant" && x->fields.value("value", nlohmann::json()).is_null()) out.push_back(1);
      else if (x->type == "Slice" && next < base->size()) out.push_back((*base)[next++]);
      else return std::nullopt;
    }
    while (next < base->size()) out.push_back((*base)[next++]);
    return out;
  }
  if (e.type != "Call") return std::nullopt;
  std::string name = call_name(e);
  const PyNode* a0 = argument(e, 0);
  if (name == "tl.arange") {
    auto r = range(e);
    return r ? std::optional<Shape>(Shape{r->hi - r->lo + 1}) : std::nullopt;
  }
  if (name == "tl.zeros" || name == "tl.full" || name == "tl.empty") return dims(a0 ? a0 : keyword(e, "shape"));
  if (name == "tl.load") return sub(pointer_arg(e));
  if (name == "tl.program_id" || name == "tl.num_programs" || name == "tl.cdiv" || name == "triton.cdiv" ||
      name == "float" || name == "int" || normalize_triton_name(name) == "tl.program_id" || is_program_id_helper(name))
    return Shape{};
  if (is_hint(name) || name == "tl.cast") return sub(a0);
  if (is_elementwise(name) || name == "min" || name == "max") return all(e.children_in("args"));
  if (name == "tl.broadcast_to") {
    auto args = e.children_in("args");
    if (args.size() == 2) return dims(args[1]);
    return std::nullopt;
  }
  if (name == "tl.reshape" || name == "tl.view") return dims(argument(e, 1) ? argument(e, 1) : keyword(e, "shape"));
  if (name == "tl.trans") {
    auto s = sub(a0);
    if (s) std::reverse(s->begin(), s->end());
    return s;
  }
  if (name == "tl.dot") {
    auto a = sub(a0), b = sub(argument(e, 1));
    if (!a || !b || a->size() < 2 || b->size() < 2) return std::nullopt;
    Shape out(a->begin(), a->end() - 1);
    out.back() = (*a)[a->size() - 2];
    out.push_back(b->back());
    return out;
  }
  if (name == "tl.sum" || name == "tl.max" || name == "tl.min" || name == "tl.argmax" || name == "tl.argmin" ||
      name == "tl.reduce" || name == "tl.xor_sum") {
    auto s = sub(a0);
    if (!s) return std::nullopt;
    const PyNode* axis = argument(e, 1) ? argument(e, 1) : keyword(e, "axis");
    if (!axis || (axis->type == "Constant" && axis->fields.value("value", nlohmann::json()).is_null())) return Shape{};
    auto ax = int_constant(*axis);
    if (!ax) return std::nullopt;
    long long k = *ax < 0 ? *ax + static_cast<long long>(s->size()) : *ax;
    if (k < 0 || k >= static_cast<long long>(s->size())) return std::nullopt;
    const PyNode* keep = keyword(e, "keep_dims");
    if (keep && keep->fields.value("value", false) == true) (*s)[static_cast<size_t>(k)] = 1;
    else s->erase(s->begin() + k);
    return s;
  }
  if (const PyNode* f = e.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
    return sub(f->child("value"));
  return std::nullopt;
}

std::string KernelView::root_pointer(const PyNode& expr) const { return root_impl(expr, 0); }

std::string KernelView::root_impl(const PyNode& e, int depth) const {
  if (depth > kMaxExpressionDepth) return {};
  auto sub = [&](const PyNode* n) { return n ? root_impl(*n, depth + 1) : std::string(); };
  if (e.type == "Name") {
    if (const Definition* d = definition(e)) {
      if (d->stmt->type == "For") return {};
      if (d->stmt->type == "AugAssign") {
        const PyNode* target = d->stmt->child("target");
        return target && target != &e ? sub(target) : std::string();
      }
      return sub(d->value);
    }
    std::string name = e.str_field("id");
    return is_pointer_param(name) ? name : std::string();
  }
  if (e.type == "BinOp") {
    std::string l = sub(e.child("left"));
    return l.empty() ? sub(e.child("right")) : l;
  }
  if (e.type == "Subscript") return sub(e.child("value"));
  if (e.type == "Call") {
    std::string name = call_name(e);
    if (is_hint(name) || name == "tl.advance" || name == "tl.broadcast_to") return sub(argument(e, 0));
    if (name == "tl.make_block_ptr") return sub(keyword(e, "base") ? keyword(e, "base") : argument(e, 0));
    if (name == "tl.where") {
      std::string a = sub(argument(e, 1));
      return a.empty() ? sub(argument(e, 2)) : a;
    }
    if (const PyNode* f = e.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
      return sub(f->child("value"));
  }
  return {};
}

}  // namespace tdx::l0
