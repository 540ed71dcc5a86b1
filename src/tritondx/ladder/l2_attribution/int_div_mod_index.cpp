// l2-int-div-mod-index: per-element integer division/modulo in index arithmetic.
#include <algorithm>
#include <optional>
#include <set>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

bool is_div_rem(std::string_view n) {
  return n == "arith.divsi" || n == "arith.divui" || n == "arith.remsi" || n == "arith.remui" ||
         n == "arith.floordivsi" || n == "arith.ceildivsi";
}

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// A divisor that is uniform across the tensor: its scalar source and value if constant.
struct Divisor {
  bool uniform = false;
  bool constant = false;
  int64_t value = 0;
  std::string name;  // the scalar SSA name or the constant's text
};

Divisor divisor_of(const IrView& ir, const std::string& v) {
  Divisor d;
  const MlirOp* op = ir.def(v);
  for (int guard = 0; op && guard < 8 && (op->name == "tt.broadcast" || op->name == "tt.expand_dims" ||
                                           op->name == "ttg.convert_layout");
       ++guard)
    op = op->operands.empty() ? nullptr : ir.def(op->operands[0]);
  if (!op) return d;
  if (op->name == "arith.constant") {
    d.uniform = d.constant = true;
    const auto* val = op->attribute("value");
    std::string t = val ? val->value : std::string();
    if (t.starts_with("dense<")) t = t.substr(6, t.find('>') - 6);
    try {
      d.value = std::stoll(t);
    } catch (const std::exception&) {
      d.constant = false;
    }
    d.name = t;
    return d;
  }
  if (op->name == "tt.splat" && !op->operands.empty()) {
    d.uniform = true;
    d.name = op->operands[0];
    const MlirOp* s = ir.def(op->operands[0]);
    if (s && s->name == "arith.constant") {
      const auto* val = s->attribute("value");
      try {
        d.value = std::stoll(val ? val->value : std::string());
        d.constant = true;
      } catch (const std::exception&) {
      }
    }
  }
  return d;
}

// Whether a value flows into a tt.addptr (i.e. it is index math), within a few steps.
bool feeds_address(const IrView& ir, const std::string& v) {
  std::vector<std::string> work{v};
  std::set<std::string> seen;
  while (!work.empty() && seen.size() < 48) {
    std::string x = work.back();
    work.pop_back();
    if (!seen.insert(x).second) continue;
    for (const MlirOp* u : ir.users(x)) {
      if (u->name == "tt.addptr") return true;
      if (u->name == "tt.load" || u->name == "tt.store" || u->name == "scf.yield") continue;
      for (const auto& r : u->results) work.push_back(r);
    }
  }
  return false;
}

class IntDivModIndexRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-int-div-mod-index"; }
  std::string_view description() const override {
    return "Integer division or modulo applied per element of a tensor (TTGIR `arith.divsi`/`remsi`/`divui`/"
           "`remui` on a tensor), typically to turn a flat index into row and column (`offs // n_cols`, "
           "`offs % n_cols`). By a run-time divisor each element costs a long integer sequence (PTX `div.s32`/"
           "`rem.s32`, SASS I2F/MUFU.RCP/IMAD.HI/... per element); and when the result feeds an address and "
           "AxisInfo cannot prove the divisor a multiple of 16, the axis info loses contiguity, so the loads "
           "that use it become scalar and uncoalesced. The finding "
           "quotes the op, the divisor (a kernel argument or a constant), the PTX division instructions and "
           "the SASS instruction count of the line. Power-of-two constant divisors are shifts and are not "
           "reported; other constants become multiply-high sequences and are reported only when configured.";
  }
  nlohmann::json options() const override { return {{"report_constant_divisors", report_constants_}}; }
  void configure(const nlohmann::json& o) override {
    report_constants_ = o.value("report_constant_divisors", report_constants_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool report_constants_ = false;
};

void IntDivModIndexRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  std::vector<int> reported;
  std::optional<AxisInfoAnalysis> axis;  // run once, for the first divisor that needs it
  for (const auto& op : ir.ttgir().ops) {
    if (!is_div_rem(op.name) || !op.loc.known() || op.operands.size() < 2) continue;
    if (op.result_types.empty() || !op.result_types[0].is_tensor) continue;
    const int line = op.loc.line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    Divisor d = divisor_of(ir, op.operands[1]);
    if (d.constant && power_of_two(d.value)) continue;
    if (d.constant && !report_constants_) continue;

    std::vector<const PtxInstruction*> ptx_div;
    for (const auto* i : ir.ptx_at(line))
      if (i->opcode == "div" || i->opcode == "rem" || (i->opcode == "mul" && i->has_modifier("hi")))
        ptx_div.push_back(i);
    auto sass = ir.sass_at(line);
    int int_sass = 0;
    const SassInstruction* first_special = nullptr;
    for (const auto* i : sass) {
      auto c = classify(*i);
      if (c == InstructionClass::IntegerMath || c == InstructionClass::SpecialFunction ||
          c == InstructionClass::Conversion)
        ++int_sass;
      if (!first_special && (i->opcode == "MUFU" || i->opcode == "I2F" || (i->opcode == "IMAD" && i->has_modifier("HI"))))
        first_special = i;
    }
    if (ptx_div.empty() && int_sass == 0) continue;  // folded away: nothing to show
    reported.push_back(line);

    const MlirType& t = op.result_types[0];
    const int64_t per_thread = std::max<int64_t>(t.num_elements() / ir.threads_per_cta(), 1);
    const bool address = feeds_address(ir, op.results.empty() ? std::string() : op.results[0]);
    const bool rem = op.name.find("rem") != std::string::npos;
    std::optional<int64_t> runtime = d.uniform && !d.constant ? ir.scalar(d.name) : std::nullopt;

    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("integer {} of a {}-element tensor by {} ({} per thread){}", rem ? "modulo" : "division",
                            t.num_elements(),
                            d.constant ? fmt::format("the constant {}", d.value)
                                       : d.uniform ? fmt::format("the run-time value {}", d.name)
                                                   : std::string("a per-element value"),
                            per_thread, address ? " in address arithmetic" : "");
    f.evidence.push_back(ir.source(line, "the index expression"));
    f.evidence.push_back(ir.op(op, fmt::format("{} on a {}-element tensor: one per element", op.name, t.num_elements())));
    if (d.uniform && !d.constant) {
      if (const MlirOp* s = ir.def(op.operands[1])) f.evidence.push_back(ir.op(*s, "the divisor, uniform but unknown "
                                                                               "to the compiler"));
    }
    if (!ptx_div.empty())
      f.evidence.push_back(ir.ptx(*ptx_div.front(), fmt::format("{} division/remainder instruction(s) on this line",
                                                                ptx_div.size())));
    if (!sass.empty())
      f.evidence.push_back(ir.sass(first_special ? *first_special : *sass.front(),
                                   fmt::format("{} integer/conversion SASS instructions on this line", int_sass)));
    f.cause = fmt::format("{} is computed per element{}", op.name,
                          d.constant ? " (a multiply-high sequence for a constant divisor)"
                                     : ": a division by a run-time value has no hardware instruction and expands "
                                       "to a reciprocal estimate plus correction steps (~20 instructions)");
    if (runtime) f.cause += fmt::format("; the divisor is {} for the captured launch", *runtime);
    // A divisor AxisInfo knows to be a multiple of 16 (an argument the JIT specialized, or a
    // product of such) still leaves runs of 16 (`offs % D` keeps contiguity gcd(contiguity, 16)):
    // then the division itself is the cost, not the accesses' width.
    bool divisor_16 = false;
    if (d.uniform && !d.constant) {
      if (!axis) axis = AxisInfoAnalysis::run(ir.ttgir());
      const AxisInfo* info = axis->get(d.name);
      divisor_16 = info && !info->divisibility.empty() && info->divisibility[0] >= 16;
    }
    if (address && divisor_16)
      f.cause += fmt::format("; the result feeds a pointer, but AxisInfo knows {} is a multiple of 16, so it "
                             "keeps runs of 16 through the division and the accesses it indexes stay vectorizable",
                             d.name);
    else if (address)
      f.cause += "; the result feeds a pointer, and AxisInfo keeps no contiguity through div/rem by a value it "
                 "cannot prove, so the accesses it indexes lose vectorization";
    f.confidence = d.constant ? 0.4 : address && !divisor_16 ? 0.75 : 0.6;
    // constexpr-divisor makes power-of-two parameters compile-time constants; a divisor captured
    // at another value would stay a division, so the finding does not propose it.
    const bool shift_when_constexpr = !runtime || power_of_two(*runtime);
    if (!d.constant && !shift_when_constexpr)
      f.cause += fmt::format("; {} is not a power of two, so a tl.constexpr would leave a multiply-high sequence",
                             *runtime);
    if (!d.constant && shift_when_constexpr)
      f.proposals.push_back({"constexpr-divisor",
                             "make the kernel parameter(s) the index is divided by a tl.constexpr: a power of two "
                             "known to the compiler is a shift or a mask",
                             {{"line", line}, {"divisor", d.name}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_int_div_mod_index_rule() { return std::make_unique<IntDivModIndexRule>(); }

}  // namespace tdx
