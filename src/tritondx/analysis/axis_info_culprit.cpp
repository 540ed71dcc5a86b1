// The culprit search of the vectorization analysis: Triton 3.6's AxisInfo transfer functions
// read backwards, op by op, to the op where a property was lost and the argument at the root.
#include "tritondx/analysis/axis_info_culprit.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace tdx::axis {

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

namespace {

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

}  // namespace

class CulpritTracer::Impl : public Tracer {
 public:
  using Tracer::Tracer;
};

CulpritTracer::CulpritTracer(const AxisInfoAnalysis& a) : impl_(std::make_unique<Impl>(a)) {}
CulpritTracer::~CulpritTracer() = default;
Trace CulpritTracer::trace(int v, Prop p, int d, int64_t need) { return impl_->trace(v, p, d, need); }

}  // namespace tdx::axis
