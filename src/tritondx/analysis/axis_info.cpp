// Axis-info replay driver: walks every function of a TTIR/TTGIR module in op order, like
// Triton's sparse forward dataflow (AxisInfoAnalysis), with scf.for iter_args joined from
// their init and yielded values until a fixpoint, scf.if results joined over both yields,
// and every value without a rule at the pessimistic state (plus tt.* hints).
#include "tritondx/analysis/axis_info.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "tritondx/analysis/axis_info_internal.h"

namespace tdx {

namespace {

using namespace axis;

std::string dims(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace

class AxisInfoBuilder {
 public:
  AxisInfoBuilder(AxisInfoAnalysis& a, const MlirModule& m) : a_(a), m_(m) {}

  void run() {
    const size_t n = m_.ops.size();
    region_end_.resize(n);
    a_.operand_defs_.assign(n, {});
    for (size_t i = 0; i < n; ++i) region_end_[i] = static_cast<int>(i) + 1;
    for (size_t j = n; j-- > 0;) {
      int p = m_.ops[j].parent;
      if (p >= 0 && static_cast<size_t>(p) < n)
        region_end_[static_cast<size_t>(p)] = std::max(region_end_[static_cast<size_t>(p)], region_end_[j]);
    }
    for (const MlirFunction* fp : callers_first()) {
      const MlirFunction& f = *fp;
      const size_t mark = undo_.size();
      const auto sites = call_sites_.find(f.name);
      for (size_t k = 0; k < f.arguments.size(); ++k) {
        const MlirArgument& arg = f.arguments[k];
        AxisInfo info = pessimistic(lattice_rank(arg.type));
        auto hint = [&](const char* name) { return read_hint(find_attr(arg.attributes, name)); };
        if (auto h = hint("tt.contiguity")) info.contiguity = *h;
        if (auto h = hint("tt.divisibility")) info.divisibility = *h;
        if (auto h = hint("tt.constancy")) info.constancy = *h;
        // A called function's scalar argument: Triton's ModuleAxisInfoAnalysis writes the gcd of
        // its call sites' values (and of a hint the argument already has) as its hints.
        if (sites != call_sites_.end() && k < sites->second.size() && sites->second[k] && info.rank() == 1) {
          const AxisInfo& site = *sites->second[k];
          auto with_hint = [](int64_t site_value, std::optional<std::vector<int64_t>> h) {
            return h && h->size() == 1 ? std::gcd(site_value, (*h)[0]) : site_value;
          };
          info.contiguity = {with_hint(site.contiguity[0], hint("tt.contiguity"))};
          info.divisibility = {with_hint(site.divisibility[0], hint("tt.divisibility"))};
          info.constancy = {with_hint(site.constancy[0], hint("tt.constancy"))};
        }
        define(arg.name, info, &arg.type, Key{-1 - f.op, static_cast<int>(k)}, -1, -1, static_cast<int>(k));
      }
      int begin = f.first_op >= 0 ? f.first_op : (f.op >= 0 ? f.op + 1 : 0);
      int end = f.end_op >= 0 ? f.end_op : (f.op >= 0 ? region_end_[static_cast<size_t>(f.op)] : begin);
      visit_range(begin, std::min<int>(end, static_cast<int>(n)));
      undo_to(mark);
    }
    for (size_t d = 0; d < a_.defs_.size(); ++d) {
      const auto& def = a_.defs_[d];
      if (a_.first_def_.try_emplace(def.name, static_cast<int>(d)).second) a_.order_.push_back(def.name);
    }
    a_.memory_ = axis::analyze_memory_ops(a_);
  }

 private:
  // A definition's identity: (op, result) for op results; (-1 - owner, k) for block arguments
  // (owner = the function's or scf.for's op index; k = -1 for an induction variable).
  struct Key {
    int a, b;
    bool operator==(const Key& o) const { return a == o.a && b == o.b; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<int64_t>()((int64_t(k.a) << 32) ^ uint32_t(k.b)); }
  };

  // The functions, each after every function that calls it (the order Triton's
  // ModuleAxisInfoAnalysis visits them in: a reverse post-order of the call graph), so that a
  // callee's arguments know all their call sites. Without calls, the module's order.
  std::vector<const MlirFunction*> callers_first() const {
    std::map<std::string, const MlirFunction*> by_name;
    for (const MlirFunction& f : m_.functions) by_name.emplace(f.name, &f);
    std::map<const MlirFunction*, std::vector<const MlirFunction*>> callees;
    for (const MlirFunction& f : m_.functions)
      for (int i = std::max(f.first_op, 0); i < f.end_op && i < static_cast<int>(m_.ops.size()); ++i)
        if (const MlirOp& op = m_.ops[static_cast<size_t>(i)]; op.name == "tt.call")
          if (const MlirAttribute* c = find_attr(op.attributes, "callee"))
            if (auto it = by_name.find(c->value); it != by_name.end()) callees[&f].push_back(it->second);
    std::vector<const MlirFunction*> post;
    std::set<const MlirFunction*> seen;
    std::function<void(const MlirFunction*)> visit = [&](const MlirFunction* f) {
      if (!seen.insert(f).second) return;
      for (const MlirFunction* c : callees[f]) visit(c);
      post.push_back(f);
    };
    for (const MlirFunction& f : m_.functions) visit(&f);
    return {post.rbegin(), post.rend()};
  }

  // One call site's scalar operands, joined into what its callee's arguments start from.
  void record_call_site(const MlirOp& op, const OpInputs& in) {
    const MlirAttribute* callee = find_attr(op.attributes, "callee");
    if (!callee) return;
    auto& args = call_sites_[callee->value];
    if (args.size() < in.infos.size()) args.resize(in.infos.size());
    for (size_t k = 0; k < in.infos.size(); ++k) {
      const AxisInfo& v = *in.infos[k];
      if (v.rank() != 1) continue;
      args[k] = args[k] ? AxisInfo{{std::gcd(args[k]->contiguity[0], v.contiguity[0])},
                                   {std::gcd(args[k]->divisibility[0], v.divisibility[0])},
                                   {std::gcd(args[k]->constancy[0], v.constancy[0])},
                                   std::nullopt}
                        : AxisInfo{{v.contiguity[0]}, {v.divisibility[0]}, {v.constancy[0]}, std::nullopt};
    }
  }

  static const MlirAttribute* find_attr(const std::vector<MlirAttribute>& attrs, std::string_view name) {
    for (const MlirAttribute& at : attrs)
      if (at.name == name) return &at;
    return nullptr;
  }

  // Defines (or joins into) a value and makes its name visible in the current scope.
  int define(const std::string& name, const AxisInfo& info, const MlirType* type, Key key, int op, int result,
             int region_arg, int region_owner = -1, bool join_existing = true) {
    if (name.empty()) return -1;
    int d;
    if (auto it = by_key_.find(key); it != by_key_.end()) {
      d = it->second;
      auto& def = a_.defs_[static_cast<size_t>(d)];
      def.info = join_existing ? join(def.info, info) : info;
    } else {
      d = static_cast<int>(a_.defs_.size());
      AxisInfoAnalysis::Definition def;
      def.name = name;
      def.op = op;
      def.result = result;
      def.region_owner = region_owner;
      def.region_arg = region_arg;
      def.type = type;
      def.info = info;
      a_.defs_.push_back(std::move(def));
      by_key_.emplace(key, d);
    }
    auto [it, inserted] = scope_.try_emplace(name, d);
    undo_.push_back({name, inserted ? -1 : it->second});
    it->second = d;
    return d;
  }

  void undo_to(size_t mark) {
    while (undo_.size() > mark) {
      auto [name, prev] = undo_.back();
      undo_.pop_back();
      if (prev < 0) scope_.erase(name);
      else scope_[name] = prev;
    }
  }

  int resolve(const std::string& v) const {
    auto it = scope_.find(v);
    return it == scope_.end() ? -1 : it->second;
  }

  const MlirType* type_of(int d, const MlirOp* user, size_t k) const {
    if (d >= 0 && a_.defs_[static_cast<size_t>(d)].type) return a_.defs_[static_cast<size_t>(d)].type;
    if (user && k < user->operand_types.size()) return &user->operand_types[k];
    return nullptr;
  }

  // Operand k of op i: its lattice (unknown values, e.g. block arguments of other region
  // ops, are pessimistic) and its type; records the resolution for the op.
  const AxisInfo& operand(const MlirOp& op, size_t k, const MlirType** type_out = nullptr) {
    int d = resolve(op.operands[k]);
    auto& slots = a_.operand_defs_[static_cast<size_t>(op.index)];
    if (slots.size() < op.operands.size()) slots.assign(op.operands.size(), -1);
    slots[k] = d;
    const MlirType* t = type_of(d, &op, k);
    if (type_out) *type_out = t;
    if (d >= 0) return a_.defs_[static_cast<size_t>(d)].info;
    scratch_.push_back(pessimistic(t ? lattice_rank(*t) : 1));
    return scratch_.back();
  }

  void visit_range(int begin, int end) {
    int i = begin;
    while (i < end) {
      visit_op(i);
      i = std::max(region_end_[static_cast<size_t>(i)], i + 1);
    }
  }

  // The ops of a region op's body in their own scope.
  void visit_body(int i) {
    const size_t mark = undo_.size();
    visit_range(i + 1, region_end_[static_cast<size_t>(i)]);
    undo_to(mark);
  }

  void visit_op(int i) {
    const MlirOp& op = m_.ops[static_cast<size_t>(i)];
    const bool has_region = region_end_[static_cast<size_t>(i)] > i + 1;
    if (op.name == "scf.for") return visit_for(i);
    if (op.name == "scf.if") return visit_if(i);
    if (has_region) visit_body(i);
    generic(op);
  }

  void generic(const MlirOp& op) {
    std::vector<std::string> names = result_names(op);
    OpInputs in;
    in.infos.reserve(op.operands.size());
    in.types.reserve(op.operands.size());
    scratch_.clear();
    scratch_.reserve(op.operands.size() + 1);  // operand() keeps pointers into it
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const MlirType* t = nullptr;
      in.infos.push_back(&operand(op, k, &t));
      in.types.push_back(t);
    }
    if (op.name == "tt.call") record_call_site(op, in);
    if (names.empty()) return;
    in.result_type = op.result_types.empty() ? nullptr : &op.result_types[0];
    std::optional<AxisInfo> r;
    if (names.size() == 1) r = visit(op, in);
    for (size_t k = 0; k < names.size(); ++k) {
      const MlirType* rt = k < op.result_types.size() ? &op.result_types[k] : nullptr;
      AxisInfo info = r ? *r : pessimistic(rt ? lattice_rank(*rt) : 1);
      apply_hints(op, info);
      define(names[k], info, rt, Key{op.index, static_cast<int>(k)}, op.index, static_cast<int>(k), -1);
    }
  }

  std::vector<const MlirOp*> yields_of(int i) const {
    std::vector<const MlirOp*> out;
    for (int j = i + 1; j < region_end_[static_cast<size_t>(i)]; ++j)
      if (m_.ops[static_cast<size_t>(j)].parent == i && m_.ops[static_cast<size_t>(j)].name == "scf.yield")
        out.push_back(&m_.ops[static_cast<size_t>(j)]);
    return out;
  }

  void visit_for(int i) {
    const MlirOp& op = m_.ops[static_cast<size_t>(i)];
    ForRegionArgs args = parse_for_args(op);
    std::vector<std::string> results = result_names(op);
    const size_t n_iter = op.operands.size() >= 3 ? op.operands.size() - 3 : 0;
    scratch_.clear();
    scratch_.reserve(op.operands.size() + 4);
    std::optional<AxisInfo> iv;
    if (op.operands.size() >= 3) {
      const AxisInfo& lb = operand(op, 0);
      operand(op, 1);
      const AxisInfo& step = operand(op, 2);
      iv = make_info({1}, {gcd(divisibility(lb, 0), divisibility(step, 0))}, {1});
    }
    std::vector<AxisInfo> cur;
    for (size_t k = 0; k < n_iter; ++k) cur.push_back(operand(op, 3 + k));
    std::vector<AxisInfo> init = cur;
    const MlirType* ivt = op.operand_types.empty() ? nullptr : &op.operand_types[0];
    std::vector<const MlirOp*> yields = yields_of(i);
    for (int iter = 0; iter < 64; ++iter) {
      const size_t mark = undo_.size();
      if (iv && !args.induction_var.empty())
        define(args.induction_var, *iv, ivt, Key{-1 - i, -1}, -1, 0, -1, i);
      for (size_t k = 0; k < n_iter && k < args.iter_args.size(); ++k) {
        const MlirType* t = k < op.result_types.size() ? &op.result_types[k] : nullptr;
        define(args.iter_args[k], cur[k], t, Key{-1 - i, static_cast<int>(k)}, -1, 0, static_cast<int>(k), i,
               /*join_existing=*/false);
      }
      visit_range(i + 1, region_end_[static_cast<size_t>(i)]);
      bool changed = false;
      for (const MlirOp* y : yields) {
        scratch_.clear();
        scratch_.reserve(y->operands.size() + 1);
        for (size_t k = 0; k < n_iter && k < y->operands.size(); ++k) {
          AxisInfo next = join(cur[k], operand(*y, k));
          if (!same(next, cur[k])) changed = true;
          cur[k] = std::move(next);
        }
      }
      undo_to(mark);
      if (!changed) break;
    }
    for (size_t k = 0; k < results.size(); ++k) {
      const MlirType* t = k < op.result_types.size() ? &op.result_types[k] : nullptr;
      AxisInfo info = k < cur.size() ? cur[k] : pessimistic(t ? lattice_rank(*t) : 1);
      define(results[k], info, t, Key{i, static_cast<int>(k)}, i, static_cast<int>(k), -1);
    }
  }

  void visit_if(int i) {
    const MlirOp& op = m_.ops[static_cast<size_t>(i)];
    scratch_.clear();
    if (!op.operands.empty()) operand(op, 0);
    std::vector<std::string> results = result_names(op);
    std::vector<const MlirOp*> yields = yields_of(i);
    std::vector<AxisInfo> joined(results.size());
    // Each branch is its own scope; the yields are resolved inside it.
    const int end = region_end_[static_cast<size_t>(i)];
    size_t mark = undo_.size();
    for (int j = i + 1; j < end;) {
      visit_op(j);
      const MlirOp& inner = m_.ops[static_cast<size_t>(j)];
      if (inner.parent == i && inner.name == "scf.yield") {
        scratch_.clear();
        scratch_.reserve(inner.operands.size() + 1);
        for (size_t k = 0; k < results.size() && k < inner.operands.size(); ++k)
          joined[k] = join(joined[k], operand(inner, k));
        undo_to(mark);
        mark = undo_.size();
      }
      j = std::max(region_end_[static_cast<size_t>(j)], j + 1);
    }
    undo_to(mark);
    for (size_t k = 0; k < results.size(); ++k) {
      const MlirType* t = k < op.result_types.size() ? &op.result_types[k] : nullptr;
      AxisInfo info = joined[k].rank() ? joined[k] : pessimistic(t ? lattice_rank(*t) : 1);
      define(results[k], info, t, Key{i, static_cast<int>(k)}, i, static_cast<int>(k), -1);
    }
  }

  AxisInfoAnalysis& a_;
  const MlirModule& m_;
  std::vector<int> region_end_;
  std::vector<AxisInfo> scratch_;
  std::unordered_map<std::string, int> scope_;
  // Per called function, per argument: the gcd of its call sites' values so far.
  std::map<std::string, std::vector<std::optional<AxisInfo>>> call_sites_;
  std::vector<std::pair<std::string, int>> undo_;
  std::unordered_map<Key, int, KeyHash> by_key_;
};

AxisInfoAnalysis AxisInfoAnalysis::run(const MlirModule& module) {
  AxisInfoAnalysis a;
  a.module_ = &module;
  AxisInfoBuilder(a, module).run();
  return a;
}

const MlirType* AxisInfoAnalysis::type_of(std::string_view ssa_value) const {
  auto it = first_def_.find(std::string(ssa_value));
  return it == first_def_.end() ? nullptr : defs_[static_cast<size_t>(it->second)].type;
}

const AxisInfo* AxisInfoAnalysis::get(std::string_view ssa_value) const {
  auto it = first_def_.find(std::string(ssa_value));
  return it == first_def_.end() ? nullptr : &defs_[static_cast<size_t>(it->second)].info;
}

int AxisInfoAnalysis::operand_definition(int op_index, size_t k) const {
  if (op_index < 0 || static_cast<size_t>(op_index) >= operand_defs_.size()) return -1;
  const auto& slots = operand_defs_[static_cast<size_t>(op_index)];
  return k < slots.size() ? slots[k] : -1;
}

const AxisInfo* AxisInfoAnalysis::operand(int op_index, size_t k) const {
  int d = operand_definition(op_index, k);
  return d < 0 ? nullptr : &defs_[static_cast<size_t>(d)].info;
}

std::string format_axis_info(const AxisInfo& info) {
  std::string cv = info.constant_value ? std::to_string(*info.constant_value) : "<none>";
  return fmt::format("contiguity = {}, divisibility = {}, constancy = {}, constant_value = {}", dims(info.contiguity),
                     dims(info.divisibility), dims(info.constancy), cv);
}

std::string AxisInfoAnalysis::print() const {
  std::string out;
  for (const Definition& d : defs_) {
    out += d.name;
    out += ": ";
    out += format_axis_info(d.info);
    out += '\n';
  }
  return out;
}

}  // namespace tdx
