// l2-excessive-predication: masks that cost more predicate instructions than the accesses they guard.
#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

bool predicate_logic(const PtxInstruction& i) {
  if (i.opcode == "setp" || i.opcode == "selp") return true;
  if (i.opcode == "and" || i.opcode == "or" || i.opcode == "xor" || i.opcode == "not") return i.has_modifier("pred");
  return false;
}

bool is_register(std::string_view s) { return s.size() > 1 && s[0] == '%'; }

// The registers an instruction defines (setp may define `%p1|%p2`).
std::vector<std::string> defined(const PtxInstruction& i) {
  std::vector<std::string> out;
  if (i.operands.empty()) return out;
  std::string_view d = i.operands[0];
  size_t bar = d.find('|');
  out.emplace_back(trim_copy(d.substr(0, bar)));
  if (bar != std::string_view::npos) out.emplace_back(trim_copy(d.substr(bar + 1)));
  return out;
}

// The predicate computation behind PTX memory instructions: the setp/selp/and.pred/... their
// predicate (or cp.async source size) is computed from, within the kernel.
class PredicateSlice {
 public:
  explicit PredicateSlice(const PtxModule& ptx) : ptx_(ptx) {
    for (const auto& i : ptx.instructions)
      if (predicate_logic(i))
        for (const auto& r : defined(i)) defs_.emplace(r, i.index);
  }
  // Adds the slice of one memory instruction to `slice`; true if the instruction is predicated.
  bool add(const PtxInstruction& mem, std::set<int>& slice) const {
    std::vector<std::string> roots;
    if (!mem.predicate.empty()) {
      std::string p = mem.predicate.substr(1);
      if (!p.empty() && p[0] == '!') p = p.substr(1);
      roots.push_back(p);
    }
    if (mem.opcode == "cp" && mem.operands.size() >= 4 && is_register(trim_copy(mem.operands[3])))
      roots.push_back(trim_copy(mem.operands[3]));
    if (roots.empty()) return false;
    std::vector<std::string> work = roots;
    int guard = 0;
    while (!work.empty() && ++guard < 256) {
      std::string r = work.back();
      work.pop_back();
      auto it = defs_.find(r);
      if (it == defs_.end()) continue;
      if (!slice.insert(it->second).second) continue;
      const auto& d = ptx_.instructions[static_cast<size_t>(it->second)];
      for (size_t k = 1; k < d.operands.size(); ++k) {
        std::string o = trim_copy(d.operands[k]);
        if (is_register(o)) work.push_back(o);
      }
    }
    return true;
  }

 private:
  const PtxModule& ptx_;
  std::unordered_map<std::string, int> defs_;
};

// The size of the make_range a value derives from (its tile extent), 0 if none.
int64_t range_extent(const IrView& ir, const std::string& v, int depth) {
  if (depth > 24) return 0;
  const MlirOp* op = ir.def(v);
  if (!op) return 0;
  if (op->name == "tt.make_range") {
    auto s = op->int_attribute("start"), e = op->int_attribute("end");
    return s && e ? *e - *s : 0;
  }
  if (op->name == "tt.load" || op->name == "tt.splat") return 0;
  for (const auto& o : op->operands)
    if (int64_t r = range_extent(ir, o, depth + 1)) return r;
  return 0;
}

// Fraction of the launch's tiles in which a mask is all-true, from its compares against
// uniform bounds; nullopt when a compare cannot be evaluated.
struct MaskFacts {
  std::optional<double> full_fraction = 1.0;
  std::vector<const MlirOp*> compares;
  std::vector<std::string> bounds;  // "n_cols = 3000 over tiles of 256"
};

void walk_mask(const IrView& ir, const std::string& v, MaskFacts& out, int depth) {
  if (depth > 24 || !out.full_fraction) return;
  const MlirOp* op = ir.def(v);
  if (!op) return;  // a scalar i1 argument or loop-carried value
  const auto& n = op->name;
  if (n == "arith.andi" || n == "tt.broadcast" || n == "tt.expand_dims" || n == "ttg.convert_layout") {
    for (const auto& o : op->operands) walk_mask(ir, o, out, depth + 1);
    return;
  }
  if (n == "tt.splat") return;  // a uniform predicate (e.g. the pipeliner's loop guard)
  if (n != "arith.cmpi" || op->operands.size() < 2) {
    out.full_fraction.reset();
    return;
  }
  out.compares.push_back(op);
  const auto* pred = op->attribute("predicate");
  std::string p = pred ? pred->value : std::string();
  // Normalize to `index OP bound` with the bound the uniform side.
  auto uniform = [&](const std::string& x) -> std::optional<int64_t> {
    const MlirOp* d = ir.def(x);
    while (d && (d->name == "tt.broadcast" || d->name == "tt.expand_dims") && !d->operands.empty())
      d = ir.def(d->operands[0]);
    if (!d) return std::nullopt;
    if (d->name == "tt.splat" && !d->operands.empty()) return ir.scalar(d->operands[0]);
    return std::nullopt;
  };
  auto lhs_bound = uniform(op->operands[0]);
  auto rhs_bound = uniform(op->operands[1]);
  bool upper = p == "slt" || p == "ult" || p == "sle" || p == "ule";
  bool lower = p == "sgt" || p == "ugt" || p == "sge" || p == "uge";
  std::optional<int64_t> bound;
  std::string index;
  if (rhs_bound && !lhs_bound) bound = rhs_bound, index = op->operands[0];
  else if (lhs_bound && !rhs_bound) bound = lhs_bound, index = op->operands[1], std::swap(upper, lower);
  if (!bound || (!upper && !lower)) {
    out.full_fraction.reset();
    return;
  }
  if (lower) return;  // `index >= 0`-style checks: true for every tile that starts in range
  int64_t tile = range_extent(ir, index, 0);
  if (tile <= 0 || *bound <= 0) {
    out.full_fraction.reset();
    return;
  }
  int64_t full = *bound / tile, all = (*bound + tile - 1) / tile;
  *out.full_fraction *= static_cast<double>(full) / static_cast<double>(all);
  const MlirOp* b = ir.def(op->operands[rhs_bound ? 1 : 0]);
  while (b && (b->name == "tt.broadcast" || b->name == "tt.expand_dims") && !b->operands.empty()) b = ir.def(b->operands[0]);
  std::string name = b && !b->operands.empty() ? b->operands[0] : std::string("bound");
  out.bounds.push_back(fmt::format("{} = {} over tiles of {} ({} of {} tiles full)", name, *bound, tile, full, all));
}

class ExcessivePredicationRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-excessive-predication"; }
  std::string_view description() const override {
    return "A masked global access whose mask costs more instructions than the access itself, although the "
           "mask is all-true for nearly every tile of the captured launch. The rule follows each predicated PTX "
           "memory instruction (`@%p ld.global`, `@%p st.global`, or the source-size operand of `cp.async`) "
           "back to the setp/selp/and.pred instructions that compute it and compares their number with the "
           "memory instructions; it evaluates the TTGIR mask (`arith.cmpi` of a tile index against a bound) "
           "with the launch's values to find the fraction of full tiles. Typical sources are 2-D masks "
           "(`(rows[:, None] < M) & (cols[None, :] < N)`) and masks re-evaluated in every loop iteration "
           "(`offs_k + k < K`) when the shapes divide the blocks; by default only accesses inside loops, "
           "whose masks are paid every iteration, are reported. The fix is an unmasked variant for full tiles "
           "(a constexpr EVEN flag) or masking only the last tile.";
  }
  nlohmann::json options() const override {
    return {{"min_predicate_ops_per_access", min_ratio_}, {"min_full_fraction", min_full_fraction_},
            {"min_predicated_fraction", min_predicated_}, {"only_in_loops", only_in_loops_}};
  }
  void configure(const nlohmann::json& o) override {
    min_ratio_ = o.value("min_predicate_ops_per_access", min_ratio_);
    min_full_fraction_ = o.value("min_full_fraction", min_full_fraction_);
    min_predicated_ = o.value("min_predicated_fraction", min_predicated_);
    only_in_loops_ = o.value("only_in_loops", only_in_loops_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_ratio_ = 1.5;          // predicate instructions per memory instruction
  double min_full_fraction_ = 0.9;  // the mask is all-true in at least this fraction of tiles
  double min_predicated_ = 0.9;     // at least this fraction of the line's memory instructions are predicated
  bool only_in_loops_ = true;       // straight-line accesses pay their masks once per program
};

void ExcessivePredicationRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready() || !ir.ptx()) return;
  PredicateSlice slicer(*ir.ptx());
  std::vector<int> reported;
  for (const auto& op : ir.ttgir().ops) {
    const std::string mask(mask_operand(op));
    if (mask.empty() || !op.loc.known() || op.operand_types.empty() || !op.operand_types[0].is_tensor) continue;
    const int line = op.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    if (only_in_loops_ && ir.enclosing_loop(op) < 0) continue;
    InstructionClass cls = op.name == "tt.store" ? InstructionClass::GlobalStore
                           : op.name == "tt.load" ? InstructionClass::GlobalLoad
                                                  : InstructionClass::AsyncCopy;
    auto mem = ir.ptx_at(line, cls);
    if (mem.empty()) continue;
    std::set<int> slice;
    int predicated = 0;
    for (const auto* i : mem) predicated += slicer.add(*i, slice) ? 1 : 0;
    const double predicated_fraction = static_cast<double>(predicated) / static_cast<double>(mem.size());
    const double ratio = static_cast<double>(slice.size()) / static_cast<double>(mem.size());
    if (predicated_fraction < min_predicated_ || ratio < min_ratio_) continue;
    MaskFacts facts;
    walk_mask(ir, mask, facts, 0);
    if (!facts.full_fraction || facts.compares.empty() || *facts.full_fraction < min_full_fraction_) continue;
    reported.push_back(line);

    int setp = 0, selp = 0, logic = 0;
    for (int k : slice) {
      const auto& i = ir.ptx()->instructions[static_cast<size_t>(k)];
      (i.opcode == "setp" ? setp : i.opcode == "selp" ? selp : logic)++;
    }
    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("{} predicate instructions ({} setp, {} selp, {} and/or.pred) guard {} memory "
                            "instructions ({:.1f} per access); the mask is all-true in {:.1f}% of the tiles",
                            slice.size(), setp, selp, logic, mem.size(), ratio, *facts.full_fraction * 100);
    f.evidence.push_back(ir.source(line, "the masked access"));
    f.evidence.push_back(ir.op(op, "masked in TTGIR"));
    for (size_t i = 0; i < facts.compares.size() && i < 2; ++i)
      f.evidence.push_back(ir.op(*facts.compares[i], i < facts.bounds.size() ? facts.bounds[i] : std::string()));
    f.evidence.push_back(ir.ptx(*mem.front(), fmt::format("{} of {} memory instructions predicated", predicated,
                                                          mem.size())));
    // The first predicate instructions of the slice, in text order.
    int shown = 0;
    for (int k : slice) {
      if (shown++ == 2) break;
      const auto& i = ir.ptx()->instructions[static_cast<size_t>(k)];
      f.evidence.push_back(ir.ptx(i, "computes the predicate"));
    }
    auto sass = ir.sass_at(line, InstructionClass::Control);
    int isetp = 0;
    for (const auto* s : sass) isetp += s->opcode == "ISETP" || s->opcode == "PLOP3" || s->opcode == "SEL";
    if (isetp > 0)
      for (const auto* s : sass)
        if (s->opcode == "ISETP" || s->opcode == "PLOP3" || s->opcode == "SEL") {
          f.evidence.push_back(ir.sass(*s, fmt::format("{} ISETP/PLOP3/SEL on this line", isetp)));
          break;
        }
    f.cause = fmt::format("the mask is evaluated per vector of the tile ({} compare(s)), and the loads/stores are "
                          "guarded one predicate each; yet for this launch ",
                          facts.compares.size());
    for (size_t i = 0; i < facts.bounds.size(); ++i) f.cause += (i ? ", " : "") + facts.bounds[i];
    f.cause += ", so the predicate work protects only the tail tiles";
    f.confidence = *facts.full_fraction >= 0.999 ? 0.55 : 0.45;
    // Every tile full: an even variant drops the masks for this launch. A partial last tile: only
    // the full tiles can skip them, behind a run-time check.
    if (*facts.full_fraction >= 1.0 - 1e-12)
      f.proposals.push_back({"even-shape-heuristic",
                             "add a constexpr EVEN flag (@triton.heuristics: shape % block == 0) and skip the mask "
                             "and `other` when it holds",
                             {{"line", line}, {"full_fraction", *facts.full_fraction}}});
    else
      f.proposals.push_back({"unmasked-full-blocks",
                             "mask only the last tile: run the access unmasked where the tile lies wholly inside the "
                             "bound (`if start + BLOCK <= n:`), keeping the mask for the tail",
                             {{"line", line}, {"full_fraction", *facts.full_fraction}, {"predicates", true}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_excessive_predication_rule() { return std::make_unique<ExcessivePredicationRule>(); }

}  // namespace tdx
