#include "tritondx/source/shape_text.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace tdx::l0 {
namespace {

using Dims = std::vector<DimText>;
constexpr int kMaxDepth = 48;

bool is_one(const DimText& d) { return squash_blanks(d.text) == "1"; }

bool is_none(const PyNode& n) {
  return n.type == "Constant" && n.fields.value("value", nlohmann::json()).is_null();  // the bridge omits None
}

// Numpy broadcasting of two spelled shapes; nullopt when two dimensions are spelled differently.
std::optional<Dims> broadcast(Dims a, const Dims& b) {
  if (a.size() < b.size()) a.insert(a.begin(), b.size() - a.size(), DimText{"1", nullptr});
  size_t off = a.size() - b.size();
  for (size_t i = 0; i < b.size(); ++i) {
    DimText& x = a[off + i];
    if (is_one(b[i])) continue;
    if (is_one(x)) x = b[i];
    else if (squash_blanks(x.text) != squash_blanks(b[i].text)) return std::nullopt;
  }
  return a;
}

bool is_elementwise(std::string_view name) {
  static const std::set<std::string, std::less<>> kNames = {
      "tl.exp",      "tl.exp2",      "tl.log",       "tl.log2",        "tl.sqrt",       "tl.sqrt_rn",
      "tl.rsqrt",    "tl.abs",       "tl.sigmoid",   "tl.cos",         "tl.sin",        "tl.erf",
      "tl.floor",    "tl.ceil",      "tl.fma",       "tl.maximum",     "tl.minimum",    "tl.where",
      "tl.clamp",    "tl.fdiv",      "tl.div_rn",    "tl.math.exp",    "tl.math.exp2",  "tl.math.log",
      "tl.math.log2", "tl.math.rsqrt", "tl.math.sqrt", "tl.math.abs",  "tl.math.div_rn", "tl.math.floor",
      "tl.math.ceil", "tl.math.fma",  "tl.umulhi"};
  return kNames.contains(name);
}

class Speller {
 public:
  explicit Speller(const KernelView& view) : view_(view) {}

  std::optional<Dims> of(const PyNode* e, int depth) const {
    if (!e || depth > kMaxDepth) return std::nullopt;
    const PyNode& n = *e;
    auto all = [&](const std::vector<const PyNode*>& nodes) -> std::optional<Dims> {
      Dims out;
      for (const PyNode* x : nodes) {
        auto s = of(x, depth + 1);
        if (!s) return std::nullopt;
        auto b = broadcast(std::move(out), *s);
        if (!b) return std::nullopt;
        out = std::move(*b);
      }
      return out;
    };
    if (n.type == "Constant") return Dims{};
    if (n.type == "Name") return of_name(n, depth);
    if (n.type == "BinOp") return all({n.child("left"), n.child("right")});
    if (n.type == "Compare") {
      auto nodes = n.children_in("comparators");
      nodes.push_back(n.child("left"));
      return all(nodes);
    }
    if (n.type == "BoolOp") return all(n.children_in("values"));
    if (n.type == "UnaryOp") return of(n.child("operand"), depth + 1);
    if (n.type == "IfExp") return all({n.child("body"), n.child("orelse")});
    if (n.type == "Attribute") {
      if (n.str_field("attr") != "T") return std::nullopt;
      auto s = of(n.child("value"), depth + 1);
      if (s) std::reverse(s->begin(), s->end());
      return s;
    }
    if (n.type == "Subscript") return of_subscript(n, depth);
    if (n.type == "Call") return of_call(n, depth, all);
    return std::nullopt;
  }

 private:
  std::optional<Dims> of_name(const PyNode& n, int depth) const {
    const Definition* d = view_.definition(n);
    if (!d) return Dims{};  // a parameter or a global: a scalar
    return of_definition(*d, n.str_field("id"), depth);
  }

  std::optional<Dims> of_definition(const Definition& d, const std::string& name, int depth) const {
    if (depth > kMaxDepth) return std::nullopt;
    if (d.stmt->type == "For") return Dims{};
    if (!d.value) return std::nullopt;  // tuple unpacking
    auto value = of(d.value, depth + 1);
    if (d.stmt->type != "AugAssign" || !value) return value;
    const Definition* prev = view_.definition_at(name, d.stmt->line, d.stmt->col);  // `x += v`: x before, with v
    if (!prev) return view_.is_param(name) ? value : std::nullopt;  // `x_ptr += row * stride`: a scalar before
    if (prev == &d) return std::nullopt;
    auto before = of_definition(*prev, name, depth + 1);
    return before ? broadcast(*before, *value) : std::nullopt;
  }

  std::optional<Dims> of_subscript(const PyNode& n, int depth) const {
    auto base = of(n.child("value"), depth + 1);
    const PyNode* slice = n.child("slice");
    if (!base || !slice) return std::nullopt;
    auto elts = slice->type == "Tuple" ? slice->children_in("elts") : std::vector<const PyNode*>{slice};
    Dims out;
    size_t next = 0;
    for (const PyNode* x : elts) {
      if (is_none(*x)) out.push_back({"1", nullptr});
      else if (x->type == "Slice" && x->children.empty() && next < base->size()) out.push_back((*base)[next++]);
      else return std::nullopt;
    }
    while (next < base->size()) out.push_back((*base)[next++]);
    return out;
  }

  std::optional<Dims> shape_argument(const PyNode* s) const {  // (A, B), [A, B] or A
    if (!s) return std::nullopt;
    auto elts = (s->type == "Tuple" || s->type == "List") ? s->children_in("elts") : std::vector<const PyNode*>{s};
    Dims out;
    for (const PyNode* x : elts) out.push_back({view_.text(*x), x});
    return out;
  }

  template <typename All>
  std::optional<Dims> of_call(const PyNode& n, int depth, const All& all) const {
    const std::string name = call_name(n);
    const PyNode* a0 = argument(n, 0);
    if (name == "tl.arange") {
      const PyNode* start = a0 ? a0 : keyword(n, "start");
      const PyNode* end = argument(n, 1) ? argument(n, 1) : keyword(n, "end");
      if (!start || !end) return std::nullopt;
      auto s = int_constant(*start), e = int_constant(*end);
      if (s && *s == 0) return Dims{{view_.text(*end), end}};
      if (s && e) return Dims{{fmt::format("{}", *e - *s), nullptr}};
      return std::nullopt;
    }
    if (name == "tl.zeros" || name == "tl.full" || name == "tl.empty") return shape_argument(a0 ? a0 : keyword(n, "shape"));
    if (name == "tl.broadcast_to") return shape_argument(argument(n, 1) ? argument(n, 1) : keyword(n, "shape"));
    if (name == "tl.load") return of(KernelView::pointer_arg(n), depth + 1);
    if (name == "tl.make_block_ptr") return shape_argument(keyword(n, "block_shape"));
    if (name == "tl.advance") return of(a0, depth + 1);
    if (name == "tl.program_id" || name == "tl.num_programs" || name == "tl.cdiv" || name == "triton.cdiv" ||
        name == "float" || name == "int")
      return Dims{};
    if (name == "tl.multiple_of" || name == "tl.max_contiguous" || name == "tl.max_constancy" || name == "tl.cast")
      return of(a0, depth + 1);
    if (const PyNode* f = n.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
      return of(f->child("value"), depth + 1);
    if (is_elementwise(name)) return all(n.children_in("args"));
    if (name == "tl.trans" && n.children_in("args").size() == 1) {
      auto s = of(a0, depth + 1);
      if (s) std::reverse(s->begin(), s->end());
      return s;
    }
    if (name == "tl.sum" || name == "tl.max" || name == "tl.min" || name == "tl.argmax" || name == "tl.argmin" ||
        name == "tl.xor_sum") {
      auto s = of(a0 ? a0 : keyword(n, "input"), depth + 1);
      if (!s) return std::nullopt;
      const PyNode* axis = argument(n, 1) ? argument(n, 1) : keyword(n, "axis");
      if (!axis || is_none(*axis)) return Dims{};
      auto ax = int_constant(*axis);
      if (!ax) return std::nullopt;
      long long k = *ax < 0 ? *ax + static_cast<long long>(s->size()) : *ax;
      if (k < 0 || k >= static_cast<long long>(s->size())) return std::nullopt;
      const PyNode* keep = keyword(n, "keep_dims");
      if (keep && keep->fields.value("value", false) == true) (*s)[static_cast<size_t>(k)] = {"1", nullptr};
      else s->erase(s->begin() + k);
      return s;
    }
    return std::nullopt;
  }

  const KernelView& view_;
};

}  // namespace

std::optional<std::vector<DimText>> shape_text(const KernelView& view, const PyNode& expr) {
  return Speller(view).of(&expr, 0);
}

std::string shape_list(const std::vector<DimText>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + dims[i].text;
  return out + "]";
}

}  // namespace tdx::l0
