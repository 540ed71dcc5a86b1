// The vector width of every global memory op, as Triton 3.6 picks it from the AxisInfo
// lattice, and the op on the pointer's or mask's def chain where the limiting property was
// lost.
//
// TTGIR (the layout is final): LoadStoreOpToLLVM's rule
//   alignment = min(max(divisibility_bytes[o0] / elem_bytes, 1), contiguity[o0])
//   vec       = min(128 / bits, min(alignment, contigPerThread[o0] of the layout))
//   vec       = min(vec, max(constancy of the mask along its order[0], 1))      (masked)
//   async copy: vec = min(max(vec, op's `contiguity` hint), 128 / bits)
// TTIR (no layout yet): Coalesce's per-thread elements stand in for the layout:
//   perThread = min(min(max(div_bytes / elem_bytes, 1), min(contiguity, shape)), 128 / bits),
//   maxed over the connected memory ops with the same shape and order, capped at
//   max(numElems / numThreads, 1) (stores: also at their own value).
#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "tritondx/analysis/axis_info_internal.h"

namespace tdx::axis {

namespace {

enum class Prop { Contig, Div, Const };

std::string_view prop_name(Prop p) {
  switch (p) {
    case Prop::Contig: return "contiguity";
    case Prop::Div: return "divisibility";
    case Prop::Const: return "constancy";
  }
  return "";
}

int64_t prop_of(const AxisInfo& a, Prop p, int d) {
  switch (p) {
    case Prop::Contig: return contiguity(a, d);
    case Prop::Div: return divisibility(a, d);
    case Prop::Const: return constancy(a, d);
  }
  return 1;
}

std::string num(int64_t v) { return v == kMaxDivisor ? std::string("2^62") : std::to_string(v); }

// What a layout says about the fastest dimension and per-thread contiguity.
struct LayoutFacts {
  bool known = false;
  std::vector<int64_t> order;              // fastest first
  std::vector<int64_t> contig_per_thread;  // per dim
  std::string text;                        // e.g. "#blocked (sizePerThread = [1, 8])"
};

std::string dims_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

LayoutFacts layout_of(const MlirModule& m, const Layout* l, size_t rank, int depth = 0) {
  LayoutFacts f;
  if (!l || depth > 4) return f;
  switch (l->kind) {
    case LayoutKind::Blocked:
      if (l->order.size() != rank || l->size_per_thread.size() != rank) return f;
      f.known = true;
      f.order = l->order;
      f.contig_per_thread = l->size_per_thread;
      f.text = fmt::format("{} (sizePerThread = {}, order = {})", l->alias.empty() ? "#ttg.blocked" : l->alias,
                           dims_text(l->size_per_thread), dims_text(l->order));
      return f;
    case LayoutKind::NvidiaMma:
      if (rank != 2) return f;
      f.known = true;
      f.order = {1, 0};
      f.contig_per_thread = {1, 2};
      f.text = fmt::format("{} (mma v{}: 2 contiguous elements per thread along N)",
                           l->alias.empty() ? "#ttg.nvidia_mma" : l->alias, l->version_major);
      return f;
    case LayoutKind::Slice: {
      const Layout* parent = m.layout(l->parent);
      LayoutFacts p = layout_of(m, parent, rank + 1, depth + 1);
      if (!p.known || l->slice_dim < 0) return f;
      const int64_t dim = l->slice_dim;
      f.known = true;
      for (int64_t o : p.order)
        if (o != dim) f.order.push_back(o > dim ? o - 1 : o);
      for (size_t d = 0; d < p.contig_per_thread.size(); ++d)
        if (static_cast<int64_t>(d) != dim) f.contig_per_thread.push_back(p.contig_per_thread[d]);
      f.text = fmt::format("#ttg.slice<dim = {}> of {}", dim, p.text);
      return f;
    }
    default:
      return f;
  }
}

// Triton's getOrderFromContiguity: dimensions by contiguity, highest first; ties keep the
// reversed dimension order (the last dimension first).
std::vector<int64_t> order_from_contiguity(const AxisInfo& a, size_t rank) {
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return contiguity(a, static_cast<int>(x)) > contiguity(a, static_cast<int>(y)); });
  return order;
}

struct Access {
  int op = -1;
  std::string kind;
  int ptr = -1, mask = -1;  // definitions (-1 = none / unknown)
  bool has_mask = false;
  const MlirType* ptr_type = nullptr;
  const MlirType* mask_type = nullptr;
  int bits = 0;
  std::optional<int64_t> contiguity_attr;  // async copies: the pipeliner's vector hint
};

std::optional<Access> access_of(const AxisInfoAnalysis& a, const MlirOp& op) {
  Access x;
  x.op = op.index;
  const std::string& n = op.name;
  size_t mask_index = std::string::npos;
  if (n == "tt.load") {
    x.kind = "load";
    mask_index = 1;
  } else if (n == "tt.store") {
    x.kind = "store";
    mask_index = 2;
  } else if (n == "ttg.async_copy_global_to_local") {
    x.kind = "async-copy";
    if (op.text.find(" mask %") != std::string::npos) mask_index = 2;
    x.contiguity_attr = op.int_attribute("contiguity");
  } else if (n == "tt.atomic_rmw") {
    x.kind = "atomic";
    mask_index = 2;
  } else if (n == "tt.atomic_cas") {
    x.kind = "atomic";
  } else {
    return std::nullopt;
  }
  if (op.operands.empty()) return std::nullopt;
  const auto& defs = a.definitions();
  x.ptr = a.operand_definition(op.index, 0);
  x.ptr_type = x.ptr >= 0 ? defs[static_cast<size_t>(x.ptr)].type : nullptr;
  if (!x.ptr_type && !op.operand_types.empty()) x.ptr_type = &op.operand_types[0];
  if (mask_index != std::string::npos && mask_index < op.operands.size()) {
    x.has_mask = true;
    x.mask = a.operand_definition(op.index, mask_index);
    x.mask_type = x.mask >= 0 ? defs[static_cast<size_t>(x.mask)].type : nullptr;
    if (!x.mask_type && mask_index < op.operand_types.size()) x.mask_type = &op.operand_types[mask_index];
  }
  if (x.ptr_type) x.bits = pointee_bits(*x.ptr_type);
  if (x.bits <= 0 && !op.result_types.empty()) x.bits = element_type_bits(op.result_types[0].element);
  return x;
}

// Per-thread elements Coalesce would pick for one op (getNumElementsPerThread).
int64_t coalesce_per_thread(const AxisInfo& p, const std::vector<int64_t>& shape, const std::vector<int64_t>& order,
                            int bits) {
  int o0 = static_cast<int>(order[0]);
  int64_t elem_bytes = std::max(bits / 8, 1);
  int64_t max_multiple = std::max<int64_t>(divisibility(p, o0) / elem_bytes, 1);
  int64_t max_contig = std::min(contiguity(p, o0), shape[static_cast<size_t>(o0)]);
  int64_t alignment = std::min(max_multiple, max_contig);
  return std::min<int64_t>(alignment, std::max(128 / std::max(bits, 1), 1));
}

// ---- culprit search

struct Trace {
  int op = -1;            // the op where the property was lost (-1: an argument, or none)
  std::string value;      // its result
  Prop prop = Prop::Contig;
  std::string rule;       // why that op loses it
  std::string root_arg;   // kernel argument at the root (no '%')
  std::string root_note;  // why the root is weak
};

class Tracer {
 public:
  using Def = AxisInfoAnalysis::Definition;

  explicit Tracer(const AxisInfoAnalysis& a) : a_(a), m_(a.module()), defs_(a.definitions()) {
    for (const MlirFunction& f : m_.functions)
      for (const MlirArgument& arg : f.arguments) args_[arg.name] = &arg;
    for (const MlirOp& op : m_.ops)
      if (op.name == "scf.yield" && op.parent >= 0) yields_[op.parent] = &op;
  }

  const Def* def(int d) const { return d >= 0 && static_cast<size_t>(d) < defs_.size() ? &defs_[static_cast<size_t>(d)] : nullptr; }
  std::string name(int d) const { return def(d) ? def(d)->name : std::string("?"); }
  int64_t have(int d, Prop p, int dim) const { return def(d) ? prop_of(def(d)->info, p, dim) : 1; }
  const std::vector<int64_t>* shape(int d) const {
    const Def* x = def(d);
    return x && x->type && x->type->is_tensor ? &x->type->shape : nullptr;
  }
  int operand(int op, size_t k) const { return a_.operand_definition(op, k); }

  Trace trace(int v, Prop p, int d, int64_t need, int depth = 0) {
    Trace none;
    none.prop = p;
    const Def* vd = def(v);
    if (!vd || depth > 200 || have(v, p, d) >= need) return none;
    if (vd->op < 0 && vd->region_owner < 0) {
      auto it = args_.find(vd->name);
      if (it != args_.end()) return argument_root(*it->second, p, need);
      return none;
    }
    if (vd->op < 0) return loop_arg(v, vd->region_owner, vd->region_arg, p, d, need, depth);
    const MlirOp* op = &m_.ops[static_cast<size_t>(vd->op)];
    const int result_index = vd->result;
    Trace here;
    here.op = op->index;
    here.value = vd->name;
    here.prop = p;
    const std::string& n = op->name;
    const char* hint_name = p == Prop::Contig ? "tt.contiguity" : p == Prop::Div ? "tt.divisibility" : "tt.constancy";
    if (op->attribute(hint_name)) {
      here.rule = fmt::format("its {} hint sets {} to {}", hint_name, prop_name(p), num(have(v, p, d)));
      return here;
    }
    auto opnd = [&](size_t k) -> int { return k < op->operands.size() ? operand(op->index, k) : -1; };
    auto oname = [&](size_t k) -> std::string { return k < op->operands.size() ? op->operands[k] : std::string("?"); };
    auto low = [&](size_t k, Prop q, int dd, int64_t nn) { return opnd(k) >= 0 && have(opnd(k), q, dd) < nn; };
    // Same property continues on the operand; a different one makes this op the culprit
    // and the operand only the root. A value that only passes through splats/broadcasts
    // from a weak kernel argument is charged to the first op that computes with it.
    auto descend = [&](size_t k, Prop q, int dd, int64_t nn, std::string rule) -> Trace {
      here.rule = std::move(rule);
      if (!low(k, q, dd, nn)) return here;
      Trace sub = trace(opnd(k), q, dd, nn, depth + 1);
      if (q == p) {
        if (sub.op < 0 || (transparent(sub.op) && !sub.root_arg.empty())) {
          sub.op = here.op;
          sub.value = here.value;
          sub.prop = p;
          sub.rule = here.rule;
        }
        return sub;
      }
      set_root(here, sub, oname(k), opnd(k), q);
      return here;
    };

    if (n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci" || n == "ttg.convert_layout" ||
        n == "tt.bitcast" || n == "builtin.unrealized_conversion_cast" || n == "gluon.set_auto_layout")
      return descend(0, p, d, need, fmt::format("{} passes its operand's {} through", n, prop_name(p)));
    if (n == "tt.splat") {
      if (p == Prop::Div) return descend(0, Prop::Div, 0, need, "a splat keeps the scalar's divisibility");
      here.rule = "a splat repeats one value, so its contiguity is 1";
      return here;
    }
    if (n == "tt.broadcast") {
      const std::vector<int64_t>* src = shape(opnd(0));
      if (src && d < static_cast<int>(src->size()) && (*src)[static_cast<size_t>(d)] == 1 && p == Prop::Contig) {
        here.rule = fmt::format("broadcasting a size-1 dimension {} repeats the value, so contiguity is 1", d);
        return here;
      }
      return descend(0, p, d, need, fmt::format("tt.broadcast keeps the operand's {}", prop_name(p)));
    }
    if (n == "tt.expand_dims") {
      int64_t axis = op->int_attribute("axis").value_or(0);
      if (d == axis) {
        if (p == Prop::Div) {
          // The new dimension's divisibility is the gcd over the operand's non-contiguous dims.
          const Def* s = def(opnd(0));
          if (s) {
            for (int sd = 0; sd < s->info.rank(); ++sd) {
              if (contiguity(s->info, sd) > 1) {
                here.rule = fmt::format(
                    "tt.expand_dims gives the new dimension divisibility 1 because its operand is contiguous "
                    "along dimension {} (a range [k, k+1, ...] counts as divisibility 1)",
                    sd);
                return here;
              }
              if (divisibility(s->info, sd) < need)
                return descend(0, Prop::Div, sd, need, "tt.expand_dims keeps the operand's divisibility");
            }
          }
        }
        here.rule = fmt::format("tt.expand_dims inserts dimension {} with {} 1", axis, prop_name(p));
        return here;
      }
      return descend(0, p, d > axis ? d - 1 : d, need, fmt::format("tt.expand_dims keeps the operand's {}", prop_name(p)));
    }
    if (n == "tt.trans") {
      here.rule = "tt.trans permutes the operand's dimensions";
      return here;
    }
    if (n == "tt.addptr" || n == "arith.addi" || n == "arith.subi") {
      int64_t esize = 1;
      if (n == "tt.addptr") {
        const Def* pd = def(opnd(0));
        const MlirType* pt = pd ? pd->type : nullptr;
        if (!pt && !op->operand_types.empty()) pt = &op->operand_types[0];
        esize = std::max<int64_t>(1, (pt ? pointee_bits(*pt) : 8) / 8);
      }
      const bool sub = n == "arith.subi";
      if (p == Prop::Div) {
        if (low(0, Prop::Div, d, need))
          return descend(0, Prop::Div, d, need,
                         n == "tt.addptr" ? std::string("tt.addptr's divisibility is gcd(div(ptr), div(offset) x element bytes)")
                                          : fmt::format("{} keeps gcd of its operands' divisibility", n));
        int64_t need_off = (need + esize - 1) / esize;
        return descend(1, Prop::Div, d, need_off,
                       n == "tt.addptr"
                           ? fmt::format("tt.addptr's divisibility is gcd(div(ptr), div(offset) x {} bytes)", esize)
                           : fmt::format("{} keeps gcd of its operands' divisibility", n));
      }
      if (p == Prop::Const) {
        size_t k = have(opnd(0), Prop::Const, d) <= have(opnd(1), Prop::Const, d) ? 0 : 1;
        return descend(k, Prop::Const, d, need, fmt::format("{} keeps gcd of its operands' constancy", n));
      }
      // contiguity = max(gcd(cst_l, ctg_r), gcd(ctg_l, cst_r)); sub: gcd(ctg_l, cst_r)
      if (!sub && !low(0, Prop::Const, d, need))
        return descend(1, Prop::Contig, d, need, fmt::format("{} of a uniform value and a range keeps the range's contiguity", n));
      if (!low(1, Prop::Const, d, need))
        return descend(0, Prop::Contig, d, need, fmt::format("{} of a range and a uniform value keeps the range's contiguity", n));
      here.rule = fmt::format(
          "{} of two operands that both vary along dimension {} has contiguity max(gcd(constancy(lhs), "
          "contiguity(rhs)), gcd(contiguity(lhs), constancy(rhs))) = {}",
          n, d, num(have(v, p, d)));
      return here;
    }
    if (n == "arith.muli") {
      const Def* l = def(opnd(0));
      const Def* r = def(opnd(1));
      if (p == Prop::Contig) {
        if (r && r->info.constant_value == 1) return descend(0, Prop::Contig, d, need, "x * 1 keeps contiguity");
        if (l && l->info.constant_value == 1) return descend(1, Prop::Contig, d, need, "1 * x keeps contiguity");
        here.rule = "AxisInfo's mul rule keeps contiguity only when multiplying by the constant 1";
        size_t scale = have(opnd(0), Prop::Contig, d) > 1 ? 1 : 0;  // the non-contiguous factor
        Trace sub = value_root(opnd(scale));
        set_root(here, sub, oname(scale), opnd(scale), Prop::Const);
        return here;
      }
      if (p == Prop::Const) {
        size_t k = have(opnd(0), Prop::Const, d) <= have(opnd(1), Prop::Const, d) ? 0 : 1;
        return descend(k, Prop::Const, d, need, "arith.muli keeps gcd of its operands' constancy");
      }
      // divisibility = div'(lhs) * div'(rhs), a contiguous operand counting as 1
      int64_t dl = l ? divisibility(l->info, d) : 1, dr = r ? divisibility(r->info, d) : 1;
      bool l_range = l && contiguity(l->info, d) > 1 && !(r && r->info.constant_value == 1);
      bool r_range = r && contiguity(r->info, d) > 1 && !(l && l->info.constant_value == 1);
      if (l_range) dl = 1;
      if (r_range) dr = 1;
      std::string rule = fmt::format("AxisInfo's mul rule gives divisibility {} x {} = {}{}", num(dl), num(dr),
                                     num(have(v, p, d)),
                                     (l_range || r_range) ? " (a contiguous factor counts as 1)" : "");
      // Prefer the factor whose chain ends at a kernel argument without a hint.
      std::vector<size_t> cands;
      if (!l_range) cands.push_back(0);
      if (!r_range) cands.push_back(1);
      std::stable_sort(cands.begin(), cands.end(),
                       [&](size_t x, size_t y) { return have(opnd(x), Prop::Div, d) < have(opnd(y), Prop::Div, d); });
      Trace best;
      bool found = false;
      for (size_t k : cands) {
        int64_t other = k == 0 ? dr : dl;
        int64_t need_k = std::max<int64_t>(1, (need + other - 1) / std::max<int64_t>(other, 1));
        if (!low(k, Prop::Div, d, need_k)) continue;
        Trace t = descend(k, Prop::Div, d, need_k, rule);
        if (!found || (!t.root_arg.empty() && best.root_arg.empty())) best = t, found = true;
      }
      if (found) return best;
      here.rule = rule;
      return here;
    }
    if (n == "arith.remsi" || n == "arith.remui" || n == "arith.divsi" || n == "arith.divui") {
      const bool rem = n == "arith.remsi" || n == "arith.remui";
      const Def* r = def(opnd(1));
      if (p == Prop::Contig && !rem) {
        if (r && r->info.constant_value == 1) return descend(0, Prop::Contig, d, need, "x / 1 keeps contiguity");
        here.rule = "AxisInfo's div rule keeps contiguity only when dividing by the constant 1";
        set_root(here, value_root(opnd(1)), oname(1), opnd(1), Prop::Div);
        return here;
      }
      if (p == Prop::Contig) {
        const std::vector<int64_t>* sh = shape(v);
        int64_t dim = sh && d < static_cast<int>(sh->size()) ? (*sh)[static_cast<size_t>(d)] : 0;
        bool lhs_full = have(opnd(0), Prop::Contig, d) == dim;
        bool rhs_uniform = have(opnd(1), Prop::Const, d) == dim;
        if (!lhs_full || !rhs_uniform) {
          here.rule = fmt::format(
              "AxisInfo's rem rule keeps contiguity only for a dividend contiguous over the whole dimension "
              "and a uniform divisor (here contiguity(lhs) = {}, constancy(rhs) = {}, size {})",
              num(have(opnd(0), Prop::Contig, d)), num(have(opnd(1), Prop::Const, d)), dim);
          return here;
        }
        here.rule = fmt::format(
            "AxisInfo's rem rule gives contiguity gcd(contiguity(lhs) = {}, divisibility(lhs) = {}, "
            "divisibility({}) = {}) = {}",
            num(have(opnd(0), Prop::Contig, d)), num(have(opnd(0), Prop::Div, d)), oname(1),
            num(have(opnd(1), Prop::Div, d)), num(have(v, p, d)));
        if (low(1, Prop::Div, d, need)) {
          set_root(here, trace(opnd(1), Prop::Div, d, need, depth + 1), oname(1), opnd(1), Prop::Div);
        } else if (low(0, Prop::Div, d, need)) {
          set_root(here, trace(opnd(0), Prop::Div, d, need, depth + 1), oname(0), opnd(0), Prop::Div);
        } else if (low(0, Prop::Contig, d, need)) {
          return descend(0, Prop::Contig, d, need, here.rule);
        }
        return here;
      }
      if (p == Prop::Const) {
        size_t k = have(opnd(0), Prop::Const, d) <= have(opnd(1), Prop::Const, d) ? 0 : 1;
        return descend(k, Prop::Const, d, need, fmt::format("{} keeps gcd of its operands' constancy", n));
      }
      if (rem && have(opnd(1), Prop::Const, d) > 1) {
        size_t k = have(opnd(0), Prop::Div, d) <= have(opnd(1), Prop::Div, d) ? 0 : 1;
        return descend(k, Prop::Div, d, need, "AxisInfo's rem rule gives divisibility gcd(div(lhs), div(rhs))");
      }
      here.rule = fmt::format("AxisInfo's {} rule gives divisibility {}", rem ? "rem" : "div", num(have(v, p, d)));
      return here;
    }
    if (n == "arith.cmpi") {
      if (p != Prop::Const) {
        here.rule = "a comparison result has contiguity and divisibility 1";
        return here;
      }
      std::string pred;
      if (const MlirAttribute* at = op->attribute("predicate")) pred = at->value;
      const std::vector<int64_t>* sh = shape(v);
      int64_t dim = sh && d < static_cast<int>(sh->size()) ? (*sh)[static_cast<size_t>(d)] : 0;
      bool lt_ge = pred == "slt" || pred == "ult" || pred == "sge" || pred == "uge";
      bool gt_le = pred == "sgt" || pred == "ugt" || pred == "sle" || pred == "ule";
      size_t range = lt_ge ? 0 : 1, bound = lt_ge ? 1 : 0;
      bool rule_applies = (lt_ge && have(opnd(1), Prop::Const, d) == dim) || (gt_le && have(opnd(0), Prop::Const, d) == dim);
      if (!rule_applies) {
        size_t k = have(opnd(0), Prop::Const, d) <= have(opnd(1), Prop::Const, d) ? 0 : 1;
        here.rule = fmt::format("AxisInfo's cmpi rule gives constancy gcd(constancy(lhs), constancy(rhs)) = {}",
                                num(have(v, p, d)));
        if (low(k, Prop::Const, d, need)) {
          Trace sub = trace(opnd(k), Prop::Const, d, need, depth + 1);
          if (sub.op >= 0) return sub;
          set_root(here, sub, oname(k), opnd(k), Prop::Const);
        }
        return here;
      }
      here.rule = fmt::format(
          "AxisInfo's cmpi rule gives the mask constancy gcd(contiguity({}) = {}, divisibility({}) = {}, "
          "divisibility({}) = {}) = {}",
          oname(range), num(have(opnd(range), Prop::Contig, d)), oname(0), num(have(opnd(0), Prop::Div, d)), oname(1),
          num(have(opnd(1), Prop::Div, d)), num(have(v, p, d)));
      // The root: the weakest of the three inputs, the bound first (the usual culprit).
      if (low(bound, Prop::Div, d, need)) {
        set_root(here, trace(opnd(bound), Prop::Div, d, need, depth + 1), oname(bound), opnd(bound), Prop::Div);
      } else if (low(range, Prop::Div, d, need)) {
        set_root(here, trace(opnd(range), Prop::Div, d, need, depth + 1), oname(range), opnd(range), Prop::Div);
      } else if (low(range, Prop::Contig, d, need)) {
        set_root(here, trace(opnd(range), Prop::Contig, d, need, depth + 1), oname(range), opnd(range), Prop::Contig);
      }
      return here;
    }
    if (n == "arith.andi" || n == "arith.ori" || n == "arith.xori") {
      if (p == Prop::Const) {
        size_t k = have(opnd(0), Prop::Const, d) <= have(opnd(1), Prop::Const, d) ? 0 : 1;
        return descend(k, Prop::Const, d, need, fmt::format("{} keeps gcd of its operands' constancy", n));
      }
      here.rule = fmt::format("{} has {} 1", n, prop_name(p));
      return here;
    }
    if (n == "arith.select" || n == "arith.maxsi" || n == "arith.maxui" || n == "arith.minsi" || n == "arith.minui") {
      size_t first = n == "arith.select" ? 1 : 0;
      size_t k = first;
      for (size_t j = first; j < op->operands.size(); ++j)
        if (have(opnd(j), p, d) < have(opnd(k), p, d)) k = j;
      if (n == "arith.select" && p != Prop::Div && have(opnd(0), Prop::Const, d) < have(opnd(k), p, d))
        return descend(0, Prop::Const, d, need, "arith.select with a varying condition keeps gcd with the condition's constancy");
      return descend(k, p, d, need, fmt::format("{} keeps the gcd of its operands' {}", n, prop_name(p)));
    }
    if (n == "tt.make_range") {
      here.rule = p == Prop::Div ? std::string("tt.make_range's divisibility is that of its start")
                                 : fmt::format("tt.make_range's contiguity is its length {}", num(have(v, p, d)));
      return here;
    }
    if (n == "arith.constant") {
      here.rule = fmt::format("the constant has {} {}", prop_name(p), num(have(v, p, d)));
      return here;
    }
    if (n == "tt.load") {
      here.rule = "values loaded from memory (tt.load) have contiguity 1 and divisibility 1";
      return here;
    }
    if (n == "scf.for") {
      const MlirOp* y = yields_.count(op->index) ? yields_.at(op->index) : nullptr;
      size_t k = static_cast<size_t>(result_index);
      if (low(3 + k, p, d, need))
        return forward(here, trace(opnd(3 + k), p, d, need, depth + 1), "the loop result joins its init value");
      if (y) {
        int yd = operand(y->index, k);
        if (yd >= 0 && have(yd, p, d) < need)
          return forward(here, trace(yd, p, d, need, depth + 1), "the loop result joins its yielded value");
      }
      here.rule = "the loop result is the join of its init and yielded values";
      return here;
    }
    if (n == "scf.if") {
      here.rule = "the scf.if result is the join of both branches' yields";
      return here;
    }
    here.rule = fmt::format("{} has no AxisInfo rule in Triton, so its result is pessimistic ({} 1)", n, prop_name(p));
    return here;
  }

 private:
  bool transparent(int op) const {
    if (op < 0) return false;
    const std::string& n = m_.ops[static_cast<size_t>(op)].name;
    return n == "tt.splat" || n == "tt.broadcast" || n == "tt.expand_dims" || n == "arith.extsi" ||
           n == "arith.extui" || n == "arith.trunci" || n == "ttg.convert_layout";
  }

  // A kernel argument behind splats/casts, as a root note (e.g. a runtime stride).
  Trace value_root(int d) {
    for (int i = 0; i < 16 && d >= 0; ++i) {
      const Def* x = def(d);
      if (!x) break;
      if (x->op < 0 && x->region_owner < 0) {
        Trace t;
        t.root_arg = x->name.substr(x->name.starts_with('%') ? 1 : 0);
        t.root_note = x->type && x->type->is_pointer ? fmt::format("{} is a runtime pointer", x->name)
                                                     : fmt::format("{} is a runtime value", x->name);
        return t;
      }
      if (x->op < 0 || !transparent(x->op)) break;
      d = operand(x->op, 0);
    }
    return {};
  }

  Trace forward(Trace here, Trace sub, std::string rule) {
    if (sub.op >= 0) return sub;
    here.rule = std::move(rule);
    here.root_arg = sub.root_arg;
    here.root_note = sub.root_note;
    return here;
  }

  void set_root(Trace& here, const Trace& sub, const std::string& operand_name, int operand_def, Prop q) {
    if (!sub.root_arg.empty()) {
      here.root_arg = sub.root_arg;
      here.root_note = sub.root_note;
      return;
    }
    if (sub.op >= 0) {
      const MlirOp& o = m_.ops[static_cast<size_t>(sub.op)];
      here.root_note = fmt::format("{} has {} {} because of `{}`{}: {}", operand_name, prop_name(q),
                                   num(have(operand_def, q, 0)), o.name,
                                   o.loc.known() ? fmt::format(" at line {}", o.loc.line) : std::string(), sub.rule);
    }
  }

  Trace argument_root(const MlirArgument& arg, Prop p, int64_t need) {
    Trace t;
    t.prop = p;
    t.root_arg = arg.name.substr(arg.name.starts_with('%') ? 1 : 0);
    const bool ptr = arg.type.is_pointer;
    if (p == Prop::Div) {
      auto div = arg.int_attribute("tt.divisibility");
      if (ptr)
        t.root_note = div ? fmt::format("pointer argument {} is only known {}-byte aligned (tt.divisibility = {})",
                                        arg.name, *div, *div)
                          : fmt::format("pointer argument {} has no tt.divisibility = 16 (its data_ptr() is not known "
                                        "16-byte aligned)",
                                        arg.name);
      else
        t.root_note = div ? fmt::format("integer argument {} is only known divisible by {}", arg.name, *div)
                          : fmt::format("{} has no tt.divisibility = 16 (Triton adds it only when the value is a "
                                        "multiple of 16)",
                                        arg.name);
    } else {
      t.root_note = fmt::format("argument {} has {} 1 (needed {})", arg.name, prop_name(p), need);
    }
    return t;
  }

  Trace loop_arg(int v, int for_op, int k, Prop p, int d, int64_t need, int depth) {
    const MlirOp& f = m_.ops[static_cast<size_t>(for_op)];
    Trace here;
    here.op = for_op;
    here.value = name(v);
    here.prop = p;
    if (k < 0) {
      here.rule = "the induction variable's divisibility is gcd(div(lower bound), div(step))";
      for (size_t j : {size_t(0), size_t(2)}) {
        int od = operand(for_op, j);
        if (od >= 0 && have(od, Prop::Div, 0) < need) {
          set_root(here, trace(od, Prop::Div, 0, need, depth + 1), j < f.operands.size() ? f.operands[j] : "?", od,
                   Prop::Div);
          break;
        }
      }
      return here;
    }
    const MlirOp* y = yields_.count(for_op) ? yields_.at(for_op) : nullptr;
    size_t kk = static_cast<size_t>(k);
    int init = operand(for_op, 3 + kk);
    if (init >= 0 && have(init, p, d) < need)
      return forward(here, trace(init, p, d, need, depth + 1), "the loop-carried value joins its init value");
    if (y) {
      int yd = operand(y->index, kk);
      if (yd >= 0 && have(yd, p, d) < need)
        return forward(here, trace(yd, p, d, need, depth + 1),
                       "the loop-carried value joins the value yielded by the previous iteration");
    }
    here.rule = "the loop-carried value is the join of its init and yielded values";
    return here;
  }

  const AxisInfoAnalysis& a_;
  const MlirModule& m_;
  const std::vector<Def>& defs_;
  std::unordered_map<std::string, const MlirArgument*> args_;
  std::unordered_map<int, const MlirOp*> yields_;
};

int source_line(const MlirOp& op) {
  if (op.loc.known()) return op.loc.line;
  return op.call_site.line;
}

std::string strip_op(const MlirOp& op) {
  std::string t = op.text;
  if (size_t loc = t.rfind(" loc("); loc != std::string::npos) t.resize(loc);
  // Drop the trailing type list: " : tensor<...>".
  int depth = 0;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    char c = t[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    else if (c == '"') {
      size_t e = t.find('"', i + 1);
      if (e == std::string::npos) break;
      i = e;
    } else if (depth == 0 && c == ' ' && t[i + 1] == ':' && t[i + 2] == ' ') {
      t.resize(i);
      break;
    }
  }
  size_t b = t.find_first_not_of(' ');
  return b == std::string::npos ? t : t.substr(b);
}

}  // namespace

std::string op_summary(const MlirOp& op) { return strip_op(op); }

std::vector<MemoryVectorization> analyze_memory_ops(const AxisInfoAnalysis& a) {
  const MlirModule& m = a.module();
  const auto& defs = a.definitions();
  std::vector<MemoryVectorization> out;
  std::vector<Access> accesses;
  for (const MlirOp& op : m.ops)
    if (auto x = access_of(a, op)) accesses.push_back(*x);
  if (accesses.empty()) return out;

  const bool ttgir = m.stage == Stage::Ttgir;
  const int64_t num_warps = m.num_warps().value_or(4);
  const int64_t threads = m.threads_per_warp().value_or(32);
  static const AxisInfo kPessimistic = pessimistic(1);
  auto info_of = [&](int d) -> const AxisInfo& { return d >= 0 ? defs[static_cast<size_t>(d)].info : kPessimistic; };

  // TTIR: connected components of the def-use graph stand in for Coalesce's slice.
  std::vector<int> parent;
  auto find = [&](int x) {
    while (parent[static_cast<size_t>(x)] != x)
      x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  };
  if (!ttgir) {
    parent.resize(m.ops.size());
    std::iota(parent.begin(), parent.end(), 0);
    for (const MlirOp& op : m.ops) {
      for (size_t k = 0; k < op.operands.size(); ++k) {
        int d = a.operand_definition(op.index, k);
        if (d < 0) continue;
        int owner = defs[static_cast<size_t>(d)].op >= 0 ? defs[static_cast<size_t>(d)].op : defs[static_cast<size_t>(d)].region_owner;
        if (owner >= 0) parent[static_cast<size_t>(find(op.index))] = find(owner);
      }
    }
  }

  Tracer tracer(a);
  struct Pre {
    std::vector<int64_t> order;
    int64_t own = 1;
    bool ptr_defined = false;
  };
  std::vector<Pre> pre(accesses.size());
  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access& x = accesses[i];
    if (x.ptr_type && x.ptr_type->is_tensor && !x.ptr_type->shape.empty() && !ttgir) {
      const AxisInfo& p = info_of(x.ptr);
      pre[i].order = order_from_contiguity(p, x.ptr_type->shape.size());
      pre[i].own = coalesce_per_thread(p, x.ptr_type->shape, pre[i].order, x.bits);
      pre[i].ptr_defined = x.ptr >= 0 && defs[static_cast<size_t>(x.ptr)].op >= 0;
    }
  }

  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access& x = accesses[i];
    const MlirOp& op = m.ops[static_cast<size_t>(x.op)];
    MemoryVectorization mv;
    mv.op_index = x.op;
    mv.kind = x.kind;
    mv.element_bits = x.bits;
    const int bits = std::max(x.bits, 1);
    mv.max_vec = std::max(128 / bits, 1);
    const AxisInfo& p = info_of(x.ptr);
    if (!x.ptr_type || !x.ptr_type->is_tensor || x.ptr_type->shape.empty()) {
      // A scalar access: one element, nothing to vectorize.
      mv.predicted_vec = 1;
      mv.max_vec = 1;
      mv.limited_by = "none";
      mv.contiguity = contiguity(p, 0);
      mv.divisibility = std::max<int64_t>(divisibility(p, 0) / std::max(bits / 8, 1), 1);
      mv.explanation = fmt::format("The scalar {} moves one element.", x.kind);
      out.push_back(std::move(mv));
      continue;
    }
    const std::vector<int64_t>& shape = x.ptr_type->shape;
    const size_t rank = shape.size();
    std::vector<int64_t> order;
    int64_t layout_vec = 0;
    std::string layout_text;
    if (ttgir) {
      LayoutFacts lf = layout_of(m, m.layout(x.ptr_type->encoding), rank);
      if (lf.known) {
        order = lf.order;
        int o0 = static_cast<int>(order[0]);
        layout_vec = std::min(lf.contig_per_thread[static_cast<size_t>(o0)], shape[static_cast<size_t>(o0)]);
        layout_text = lf.text;
      }
    } else {
      order = pre[i].order;
      int64_t per_thread = pre[i].own;
      if (pre[i].ptr_defined) {
        for (size_t j = 0; j < accesses.size(); ++j) {
          if (j == i || !accesses[j].ptr_type || accesses[j].ptr_type->shape != shape || pre[j].order != order) continue;
          if (find(accesses[j].op) != find(x.op)) continue;
          per_thread = std::max(per_thread, pre[j].own);
        }
      }
      int64_t elems = x.ptr_type->num_elements();
      per_thread = std::min<int64_t>(per_thread, std::max<int64_t>(elems / (num_warps * threads), 1));
      if (x.kind != "load") per_thread = std::min(per_thread, pre[i].own);
      layout_vec = std::min(per_thread, shape[static_cast<size_t>(order[0])]);
      layout_text = fmt::format("Coalesce's sizePerThread[{}] = {} (numElems {} / {} threads)", order[0], per_thread,
                                elems, num_warps * threads);
    }
    if (order.empty()) {
      for (size_t d = rank; d-- > 0;) order.push_back(static_cast<int64_t>(d));
    }
    const int o0 = static_cast<int>(order[0]);
    mv.order0 = o0;
    mv.layout_vec = layout_vec;
    const int64_t elem_bytes = std::max(bits / 8, 1);
    const int64_t f_contig = contiguity(p, o0);
    const int64_t f_align = std::max<int64_t>(divisibility(p, o0) / elem_bytes, 1);
    mv.contiguity = f_contig;
    mv.divisibility = f_align;
    int64_t vec = std::min<int64_t>(mv.max_vec, std::min(f_align, f_contig));
    if (layout_vec > 0) vec = std::min(vec, layout_vec);
    int64_t f_mask = kMaxDivisor;
    int mask_o0 = o0;
    if (x.has_mask) {
      if (ttgir && x.mask_type && x.mask_type->is_tensor) {
        LayoutFacts mf = layout_of(m, m.layout(x.mask_type->encoding), x.mask_type->shape.size());
        if (mf.known) mask_o0 = static_cast<int>(mf.order[0]);
      }
      if (!x.mask_type || x.mask_type->is_tensor) {
        f_mask = std::max<int64_t>(constancy(info_of(x.mask), mask_o0), 1);
        mv.mask_constancy = f_mask;
        vec = std::min(vec, f_mask);
      }
    }
    if (x.kind == "async-copy" && x.contiguity_attr) vec = std::min<int64_t>(std::max(vec, *x.contiguity_attr), mv.max_vec);
    vec = std::max<int64_t>(vec, 1);
    mv.predicted_vec = static_cast<int>(vec);

    // What limits it, in priority order (a pointer property first: fixing the mask or the
    // layout alone would not help).
    if (vec >= mv.max_vec) mv.limited_by = "none";
    else if (f_contig <= vec) mv.limited_by = "contiguity";
    else if (f_align <= vec) mv.limited_by = "alignment";
    else if (f_mask <= vec) mv.limited_by = "mask";
    else mv.limited_by = "layout";

    std::string what = op.loc_name;
    if (what.empty()) what = pointer_base(a, x.ptr);
    if (what.empty()) what = op.operands[0];
    const int line = source_line(op);
    const std::string at_line = line > 0 ? fmt::format(" (line {})", line) : std::string();
    if (mv.limited_by == "none") {
      mv.explanation = fmt::format("The {} of {}{} uses vec={} ({} bits), the widest possible.", x.kind, what, at_line,
                                   vec, vec * bits);
      out.push_back(std::move(mv));
      continue;
    }
    if (mv.limited_by == "layout") {
      mv.culprit_op = x.op;
      mv.property = "layout";
      mv.culprit_value = op.operands[0];
      mv.explanation = fmt::format(
          "The {} of {}{} uses vec={} (max {}) because the layout of `{}` gives each thread only {} contiguous "
          "element(s) along dimension {}: {}; pointer contiguity {} and alignment {} would allow more.",
          x.kind, what, at_line, vec, mv.max_vec, strip_op(op), layout_vec, o0, layout_text, num(f_contig),
          num(f_align));
      out.push_back(std::move(mv));
      continue;
    }
    Trace t;
    if (mv.limited_by == "contiguity") t = tracer.trace(x.ptr, Prop::Contig, o0, mv.max_vec);
    else if (mv.limited_by == "alignment") t = tracer.trace(x.ptr, Prop::Div, o0, mv.max_vec * elem_bytes);
    else t = tracer.trace(x.mask, Prop::Const, mask_o0, mv.max_vec);
    if (t.op < 0) {  // the pointer is itself a weak argument
      t.op = x.op;
      t.value = op.operands[0];
    }
    mv.culprit_op = t.op;
    mv.property = std::string(prop_name(t.prop));
    mv.culprit_value = t.value;
    mv.root_argument = t.root_arg;
    mv.root_note = t.root_note;
    if (mv.limited_by != "mask" && x.has_mask && f_mask < mv.max_vec)
      mv.mask_root_argument = tracer.trace(x.mask, Prop::Const, mask_o0, mv.max_vec).root_arg;
    const MlirOp& c = m.ops[static_cast<size_t>(t.op)];
    const int cline = source_line(c);
    std::string limit_text = mv.limited_by == "contiguity"  ? fmt::format("pointer contiguity {}", num(f_contig))
                             : mv.limited_by == "alignment" ? fmt::format("pointer alignment {} element(s)", num(f_align))
                                                            : fmt::format("mask constancy {}", num(f_mask));
    mv.explanation = fmt::format("The {} of {}{} uses vec={} (max {}), limited by {}: {} is lost at `{}`{}, where {}{}.",
                                 x.kind, what, at_line, vec, mv.max_vec, limit_text, prop_name(t.prop), strip_op(c),
                                 cline > 0 ? fmt::format(" (line {})", cline) : std::string(), t.rule,
                                 t.root_note.empty() ? std::string() : "; " + t.root_note);
    out.push_back(std::move(mv));
  }
  return out;
}

std::string pointer_base(const AxisInfoAnalysis& a, int d) {
  const auto& defs = a.definitions();
  const MlirModule& m = a.module();
  for (int i = 0; i < 32 && d >= 0; ++i) {
    const auto& x = defs[static_cast<size_t>(d)];
    if (x.op < 0) return x.region_owner < 0 ? x.name.substr(x.name.starts_with('%') ? 1 : 0) : std::string();
    const MlirOp& op = m.ops[static_cast<size_t>(x.op)];
    if (op.name == "tt.addptr" || op.name == "tt.splat" || op.name == "tt.broadcast" ||
        op.name == "ttg.convert_layout" || op.name == "tt.expand_dims")
      d = a.operand_definition(op.index, 0);
    else
      return {};
  }
  return {};
}

}  // namespace tdx::axis
