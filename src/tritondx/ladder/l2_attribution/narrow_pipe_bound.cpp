// l2-narrow-pipe-bound: work on the 16-per-clock pipes (MUFU, conversions) that takes nearly as
// long as the kernel's roofline floor, or longer.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "tritondx/analysis/static_cost.h"
#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

// SASS opcodes issued to the pipes that retire 16 thread-operations per clock per SM on sm_90
// (CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 9.0:
// reciprocal/rsqrt/log2/exp2/sin/cos and "all other type conversions"). F2FP (pack to 16-bit)
// and I2FP run on the full-rate pipes and are not counted.
bool narrow_pipe(const SassInstruction& i) {
  const auto& op = i.opcode;
  return op == "MUFU" || op == "F2I" || op == "I2F" || op == "FRND" || op == "F2F" || op == "I2I";
}

struct LineCost {
  int line = 0;
  int per_thread = 0;             // narrow-pipe SASS instructions, static count
  int in_loop = 0;                // of them, inside a loop of the machine code
  int64_t trips = 1;              // executions per program of the line's loop body
  double ops = 0;                 // executed per thread (hoisted ones once) * threads
  const SassInstruction* first = nullptr;
  std::map<std::string, int> opcodes;  // "MUFU.RCP" -> 64
};

// Does an SSA value derive from tt.get_program_id (through a bounded walk of its definitions)?
bool depends_on_program_id(const IrView& ir, const std::string& value) {
  std::vector<std::string> work{value};
  std::set<std::string> seen;
  while (!work.empty() && seen.size() < 64) {
    std::string v = IrView::strip_result(work.back());
    work.pop_back();
    if (!seen.insert(v).second) continue;
    const MlirOp* op = ir.def(v);
    if (!op) continue;
    if (op->name == "tt.get_program_id") return true;
    for (const auto& o : op->operands) work.push_back(o);
  }
  return false;
}

// Executions of a line per program: the trip counts of the loops around its TTGIR ops; nullopt
// when one is unknown or differs between programs (bounds from tt.get_program_id, a causal
// attention loop), since then no one count stands for the launch.
std::optional<int64_t> trips_of_line(const IrView& ir, int line) {
  int64_t trips = 1;
  for (int index : ir.ctx().source_map->at(Stage::Ttgir, line)) {
    const MlirOp& op = ir.ttgir().ops[static_cast<size_t>(index)];
    int64_t here = 1;
    for (int p = ir.enclosing_loop(op); p >= 0; p = ir.enclosing_loop(ir.ttgir().ops[static_cast<size_t>(p)])) {
      const MlirOp& loop = ir.ttgir().ops[static_cast<size_t>(p)];
      for (size_t b = 0; b < 3 && b < loop.operands.size(); ++b)  // lower bound, upper bound, step
        if (depends_on_program_id(ir, loop.operands[b])) return std::nullopt;
      auto t = ir.trip_count(loop);
      if (!t) return std::nullopt;
      here *= std::max<int64_t>(*t, 0);
    }
    trips = std::max(trips, here);
  }
  return trips;
}

// The TTGIR ops of a line.
std::vector<const MlirOp*> ops_at(const IrView& ir, int line) {
  std::vector<const MlirOp*> out;
  for (int index : ir.ctx().source_map->at(Stage::Ttgir, line)) out.push_back(&ir.ttgir().ops[static_cast<size_t>(index)]);
  return out;
}

// A tt.precise_divf on a tensor whose divisor is one scalar splat over the tensor.
const MlirOp* division_by_uniform(const IrView& ir, const std::vector<const MlirOp*>& ops) {
  for (const MlirOp* op : ops) {
    if (op->name != "tt.precise_divf" || op->operands.size() < 2 || op->result_types.empty() ||
        !op->result_types[0].is_tensor)
      continue;
    const MlirOp* d = ir.def(op->operands[1]);
    for (int guard = 0; d && guard < 8 && (d->name == "tt.broadcast" || d->name == "ttg.convert_layout"); ++guard)
      d = d->operands.empty() ? nullptr : ir.def(d->operands[0]);
    if (d && d->name == "tt.splat") return op;
  }
  return nullptr;
}

bool has_op(const std::vector<const MlirOp*>& ops, std::string_view name) {
  return std::any_of(ops.begin(), ops.end(), [&](const MlirOp* o) { return o->name == name; });
}

class NarrowPipeBoundRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-narrow-pipe-bound"; }
  std::string_view description() const override {
    return "The kernel's instructions on the 16-per-clock pipes (SASS MUFU for reciprocal, exp2, log2, "
           "sin/cos, and the conversions F2I, I2F, FRND (floor/ceil/trunc/round), F2F, I2I), counted per "
           "source line in the SASS and multiplied by the threads of the launch, take at the target's narrow-pipe "
           "rate at least `min_fraction_of_floor` of the roofline floor: those pipes bound the kernel, or nearly. "
           "Instructions outside every loop of the machine code count once (ptxas "
           "hoists loop-invariant work but keeps its line). Typical sources are an IEEE division per element "
           "(tl.math.div_rn: MUFU.RCP and a correction sequence with a slow-path check) and rounding through "
           "tl.floor/tl.ceil. Proposals: reciprocal-division for a per-element division by a value uniform "
           "across the tile, round-by-truncation for floor/ceil rounding whose result is converted to an "
           "integer.";
  }
  nlohmann::json options() const override { return {{"min_fraction_of_floor", min_fraction_}}; }
  void configure(const nlohmann::json& o) override { min_fraction_ = o.value("min_fraction_of_floor", min_fraction_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_fraction_ = 0.75;
};

void NarrowPipeBoundRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready() || !ir.sass() || !ctx.launch || !ctx.summary || !ctx.target) return;
  auto rate = ctx.target->ceilings.find("narrow_pipe_ops_per_second");
  if (rate == ctx.target->ceilings.end() || rate->second.value <= 0) return;
  const double threads = static_cast<double>(ir.threads_per_cta()) * static_cast<double>(ctx.launch->programs());

  // The backend hoists loop-invariant work (a divisor's reciprocal) out of the loop but keeps its
  // source line: only instructions inside a loop of the machine code run once per trip.
  const auto loops = sass_loops(*ir.sass());
  auto in_machine_loop = [&](const SassInstruction& i) {
    return std::any_of(loops.begin(), loops.end(), [&](const SassLoop& l) { return i.index >= l.first && i.index <= l.last; });
  };
  std::vector<LineCost> lines;
  std::vector<int> unknown_trips;
  for (int line : ctx.source_map->lines()) {
    LineCost c;
    c.line = line;
    for (const auto* i : ir.sass_at(line)) {
      if (!narrow_pipe(*i)) continue;
      ++c.per_thread;
      c.in_loop += in_machine_loop(*i) ? 1 : 0;
      ++c.opcodes[i->full_opcode()];
      if (!c.first) c.first = i;
    }
    if (c.per_thread == 0) continue;
    auto trips = trips_of_line(ir, line);
    if (!trips && c.in_loop > 0) {
      unknown_trips.push_back(line);
      continue;
    }
    c.trips = trips.value_or(1);
    double executed = c.trips > 1 ? static_cast<double>(c.in_loop) * static_cast<double>(c.trips) +
                                        static_cast<double>(c.per_thread - c.in_loop)
                                  : static_cast<double>(c.per_thread);
    c.ops = executed * threads;
    lines.push_back(std::move(c));
  }
  double ops = 0;
  for (const auto& c : lines) ops += c.ops;
  const double narrow_seconds = ops / rate->second.value;
  auto cost = estimate_static_cost(*ctx.program, *ctx.summary, *ctx.launch, *ctx.target, ctx.min_bytes, ctx.flops);
  if (lines.empty() || cost.floor_seconds <= 0 || narrow_seconds < min_fraction_ * cost.floor_seconds) return;

  std::sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.ops > b.ops; });
  const LineCost& top = lines.front();
  Finding f = ir.finding_at(top.line);
  f.symptom = fmt::format("{:.1f} M narrow-pipe (MUFU/conversion) thread-instructions take {:.1f} us at {:.2f} T/s, "
                          "{:.0f}% of the {:.1f} us roofline floor",
                          ops / 1e6, narrow_seconds * 1e6, rate->second.value / 1e12,
                          100.0 * narrow_seconds / cost.floor_seconds, cost.floor_seconds * 1e6);
  for (const auto& c : lines) {
    if (c.ops < 0.1 * ops) continue;
    std::string mix;
    for (const auto& [opcode, n] : c.opcodes) mix += fmt::format("{}{} {}", mix.empty() ? "" : ", ", n, opcode);
    f.evidence.push_back(ir.source(c.line, fmt::format("{:.0f}% of the narrow-pipe work", 100.0 * c.ops / ops)));
    std::string runs = c.trips > 1 ? fmt::format(", {} of them in the loop, run {} times", c.in_loop, c.trips) : "";
    f.evidence.push_back(ir.sass(*c.first, fmt::format("{} per thread on this line{}: {}", c.per_thread, runs, mix)));
  }
  f.cause = fmt::format(
      "these pipes retire 16 thread-operations per clock per SM against 128 for FFMA ({} ceiling: {}); the "
      "launch runs {:.0f} threads, so the narrow-pipe instructions alone need {:.1f} us against a roofline floor "
      "of {:.1f} us ({}-bound); they run beside the memory system and the tensor cores, not faster",
      "narrow_pipe_ops_per_second", rate->second.source, threads, narrow_seconds * 1e6, cost.floor_seconds * 1e6, cost.bound);
  if (!unknown_trips.empty())
    f.cause += fmt::format("; {} line(s) inside loops whose trip count is unknown or differs between programs are not "
                           "counted", unknown_trips.size());
  f.confidence = narrow_seconds >= cost.floor_seconds ? 0.7 : 0.5;
  if (narrow_seconds > cost.floor_seconds) f.estimated_gain = narrow_seconds / cost.floor_seconds;

  for (const auto& c : lines) {
    if (c.ops < 0.1 * ops) continue;
    auto ops_here = ops_at(ir, c.line);
    if (const MlirOp* div = division_by_uniform(ir, ops_here)) {
      f.evidence.push_back(ir.op(*div, "an IEEE division per element by a value splat over the tensor"));
      f.proposals.push_back({"reciprocal-division",
                             "divide by the uniform divisor once (a correctly rounded reciprocal per program) and "
                             "get each quotient from a multiply and two FMAs (Markstein's correction), equal to "
                             "tl.math.div_rn's for divisors and quotients in the normal range",
                             {{"line", c.line}}});
    }
    if (has_op(ops_here, "math.floor") && has_op(ops_here, "math.ceil") && has_op(ops_here, "arith.select"))
      f.proposals.push_back({"round-by-truncation",
                             "round half away from zero by adding +-0.5 and letting the float-to-integer conversion "
                             "truncate: no FRND per element",
                             {{"line", c.line}}});
  }
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_narrow_pipe_bound_rule() { return std::make_unique<NarrowPipeBoundRule>(); }

}  // namespace tdx
