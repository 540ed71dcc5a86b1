// l2-narrow-pipe-bound: per-element work on the 16-per-clock pipes (MUFU, conversions) that
// takes longer than the kernel's memory floor.
#include <algorithm>
#include <map>
#include <optional>

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
  int64_t trips = 1;              // executions per program (product of enclosing loop trips)
  double ops = 0;                 // per_thread * trips * threads * programs
  const SassInstruction* first = nullptr;
  std::map<std::string, int> opcodes;  // "MUFU.RCP" -> 64
};

// Executions of a line per program: the trip counts of the loops around its TTGIR ops.
std::optional<int64_t> trips_of_line(const IrView& ir, int line) {
  int64_t trips = 1;
  for (int index : ir.ctx().source_map->at(Stage::Ttgir, line)) {
    const MlirOp& op = ir.ttgir().ops[static_cast<size_t>(index)];
    int64_t here = 1;
    for (int p = ir.enclosing_loop(op); p >= 0; p = ir.enclosing_loop(ir.ttgir().ops[static_cast<size_t>(p)])) {
      auto t = ir.trip_count(ir.ttgir().ops[static_cast<size_t>(p)]);
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
           "rate at least `min_fraction_of_floor` of the roofline floor (kernels without tl.dot): the "
           "kernel is bound by those pipes, not by memory. Typical sources are an IEEE division per element "
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
  // Beside tensor-core work these pipes run in parallel with the roofline's compute side, so a
  // comparison with a dot kernel's floor would say little.
  if (!ctx.summary->dots.empty()) return;
  auto rate = ctx.target->ceilings.find("narrow_pipe_ops_per_second");
  if (rate == ctx.target->ceilings.end() || rate->second.value <= 0) return;
  const double threads = static_cast<double>(ir.threads_per_cta()) * static_cast<double>(ctx.launch->programs());

  std::vector<LineCost> lines;
  std::vector<int> unknown_trips;
  for (int line : ctx.source_map->lines()) {
    LineCost c;
    c.line = line;
    for (const auto* i : ir.sass_at(line)) {
      if (!narrow_pipe(*i)) continue;
      ++c.per_thread;
      ++c.opcodes[i->full_opcode()];
      if (!c.first) c.first = i;
    }
    if (c.per_thread == 0) continue;
    auto trips = trips_of_line(ir, line);
    if (!trips) {
      unknown_trips.push_back(line);
      continue;
    }
    c.trips = *trips;
    c.ops = static_cast<double>(c.per_thread) * static_cast<double>(c.trips) * threads;
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
    f.evidence.push_back(ir.sass(*c.first, fmt::format("{} per thread on this line{}: {}", c.per_thread,
                                                       c.trips > 1 ? fmt::format(", run {} times", c.trips) : "", mix)));
  }
  f.cause = fmt::format(
      "these pipes retire 16 thread-operations per clock per SM against 128 for FFMA ({} ceiling: {}); the "
      "launch runs {:.0f} threads, so the narrow-pipe instructions alone need {:.1f} us where the memory "
      "traffic needs {:.1f} us",
      "narrow_pipe_ops_per_second", rate->second.source, threads, narrow_seconds * 1e6, cost.floor_seconds * 1e6);
  if (!unknown_trips.empty())
    f.cause += fmt::format("; {} line(s) inside loops with unknown trip counts are not counted", unknown_trips.size());
  f.confidence = narrow_seconds >= cost.floor_seconds ? 0.7 : 0.5;
  f.estimated_gain = std::max(1.0, narrow_seconds / cost.floor_seconds);

  for (const auto& c : lines) {
    if (c.ops < 0.1 * ops) continue;
    auto ops_here = ops_at(ir, c.line);
    if (const MlirOp* div = division_by_uniform(ir, ops_here)) {
      f.evidence.push_back(ir.op(*div, "an IEEE division per element by a value splat over the tensor"));
      f.proposals.push_back({"reciprocal-division",
                             "divide by the uniform divisor once (a correctly rounded reciprocal per program) and "
                             "get each quotient from a multiply and two FMAs (Markstein's correction), bit-identical "
                             "to tl.math.div_rn",
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
