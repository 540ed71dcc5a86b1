// l2-register-spills: ptxas spilled registers to local memory (SASS STL/LDL).
#include <algorithm>
#include <map>

#include "tritondx/ladder/l2_attribution/l2_rule.h"
#include "tritondx/source/kernel_view.h"

namespace tdx {
namespace {

using namespace l2;

struct CarriedTensor {
  const MlirOp* loop = nullptr;
  std::string name;
  MlirType type;
  double registers = 0;  // 32-bit registers per thread
};

class RegisterSpillsRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-register-spills"; }
  std::string_view description() const override {
    return "ptxas could not fit the kernel in the registers it may use and spilled to local memory: the "
           "resource report shows spill stores/loads, and SASS has `STL`/`LDL` instructions (thread-private "
           "memory, cached in L1 but backed by DRAM). The finding is placed on the source line with the most "
           "spill instructions and lists the other lines; the cause names the register budget (255 or "
           "`maxnreg`) and the largest loop-carried tensors per thread, such as a dot accumulator. PTX "
           "`ld.local`/`st.local` appear only for real local arrays, so spills are evidenced from SASS and ptxas.";
  }
  nlohmann::json options() const override { return {{"min_spill_bytes", min_spill_bytes_}}; }
  void configure(const nlohmann::json& o) override { min_spill_bytes_ = o.value("min_spill_bytes", min_spill_bytes_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  int min_spill_bytes_ = 1;
};

// A streaming loop `for i in range(lo, hi, BLOCK)` whose block holds more elements per thread
// than fit registers: each step loads a BLOCK tile, so a smaller BLOCK streams the same data.
struct StreamingBlock {
  std::string name;
  long long value = 0, per_thread = 0;
  int line = 0;  // the loop's
};

// Elements of one loaded tile a thread may hold across a streaming loop's step.
constexpr long long kStreamingElementsPerThread = 16;

std::optional<StreamingBlock> largest_streaming_block(const KernelContext& ctx) {
  if (!ctx.function || !ctx.launch || !ctx.task) return std::nullopt;
  l0::KernelView view(ctx);
  const long long threads = 32LL * std::max(ctx.launch->num_warps(), 1);
  std::optional<StreamingBlock> best;
  PyModule::walk(*ctx.function, [&](const PyNode& n) {
    const PyNode* iter = n.type == "For" ? n.child("iter") : nullptr;
    auto args = iter ? l0::KernelView::range_arguments(*iter) : std::vector<const PyNode*>{};
    const PyNode* step = args.size() >= 3 ? args[2] : nullptr;
    if (!step || step->type != "Name") return;
    const KernelParam* param = view.param_info(step->str_field("id"));
    auto value = ctx.launch->int_arg(step->str_field("id"));
    if (!param || !param->is_constexpr || !value || !l0::is_pow2(*value)) return;
    if (!best || *value > best->value) best = StreamingBlock{step->str_field("id"), *value, *value / threads, n.line};
  });
  if (!best || best->per_thread <= kStreamingElementsPerThread) return std::nullopt;
  return best;
}

std::vector<CarriedTensor> carried_tensors(const IrView& ir) {
  std::vector<CarriedTensor> out;
  const auto& m = ir.ttgir();
  for (const auto& op : m.ops) {
    if (op.name != "scf.for") continue;
    auto args = for_arguments(op);
    for (size_t i = 0; i < op.result_types.size() && i < args.iter.size(); ++i) {
      const MlirType& t = op.result_types[i];
      if (!t.is_tensor) continue;
      int bits = t.is_pointer ? 64 : scalar_bits(t.element);
      double regs = static_cast<double>(t.num_elements()) * std::max(bits, 32) / 32.0 / ir.threads_per_cta();
      out.push_back({&op, args.iter[i].first, t, regs});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.registers > b.registers; });
  return out;
}

void RegisterSpillsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  const auto& res = ir.program().resources;
  if (res.spill_stores + res.spill_loads < min_spill_bytes_) return;

  // SASS spill instructions per source line of the task.
  std::map<int, std::vector<const SassInstruction*>> by_line;
  int unmapped = 0;
  if (ir.sass()) {
    for (const auto& i : ir.sass()->instructions) {
      if (i.opcode != "STL" && i.opcode != "LDL") continue;
      auto loc = ctx.source_map->loc_of(Stage::Sass, i.index);
      if (loc) by_line[loc->line].push_back(&i);
      else ++unmapped;
    }
  }
  int line = ir.kernel_line();
  size_t most = 0;
  for (const auto& [l, v] : by_line)
    if (v.size() > most) most = v.size(), line = l;
  if (line <= 0) return;

  Finding f = ir.finding_at(line);
  int stl = 0, ldl = 0;
  for (const auto& [l, v] : by_line)
    for (const auto* i : v) (i->opcode == "STL" ? stl : ldl)++;
  f.symptom = fmt::format("{} bytes of register spill stores and {} bytes of spill loads ({} STL, {} LDL in SASS); "
                          "{} registers per thread",
                          res.spill_stores, res.spill_loads, stl, ldl, res.registers);
  f.evidence.push_back(ir.source(line, by_line.empty() ? "the kernel" : "the line with the most spill instructions"));
  f.evidence.push_back(ir.resources(
      fmt::format("ptxas: Used {} registers, {} bytes stack frame, {} bytes spill stores, {} bytes spill loads",
                  res.registers, res.stack_frame, res.spill_stores, res.spill_loads),
      "the ptxas resource report"));
  int shown = 0;
  for (const auto& [l, v] : by_line) {
    if (shown++ == 4) break;
    int s = 0, d = 0;
    for (const auto* i : v) (i->opcode == "STL" ? s : d)++;
    f.evidence.push_back(ir.sass(*v.front(), fmt::format("line {}: {} STL, {} LDL", l, s, d)));
  }
  if (unmapped > 0) {
    EvidenceLink e = ir.resources(fmt::format("{} STL/LDL without a line of the task", unmapped), "unattributed spills");
    e.stage = Stage::Sass;
    f.evidence.push_back(std::move(e));
  }
  if (ir.ptx()) {
    for (const auto* i : ir.ptx_at(line, InstructionClass::LocalMemory)) {
      f.evidence.push_back(ir.ptx(*i, "a local array in PTX (not a spill)"));
      break;
    }
  }

  const int budget = ir.ptx() && ir.ptx()->max_nreg > 0 ? ir.ptx()->max_nreg : 255;
  auto carried = carried_tensors(ir);
  double carried_regs = 0;
  for (const auto& c : carried) carried_regs += c.registers;
  f.cause = fmt::format("the kernel needs more than the {} registers per thread it may use{}", budget,
                        budget < 255 ? " (maxnreg)" : "");
  if (!carried.empty()) {
    const auto& c = carried.front();
    f.evidence.push_back(ir.op(*c.loop, fmt::format("loop-carried {} {} {}: {:.0f} registers per thread", c.name,
                                                    format_dims(c.type.shape), c.type.element, c.registers)));
    f.cause += fmt::format("; the loops carry {:.0f} registers per thread of tensors, the largest {} {} {} ({:.0f})",
                           carried_regs, c.name, format_dims(c.type.shape), c.type.element, c.registers);
  }
  f.cause += "; what does not fit lives in local memory, and every LDL is a round trip through L1/L2";
  bool in_loop = false;
  for (int i : ctx.source_map->at(Stage::Ttgir, line))
    if (ir.enclosing_loop(ir.ttgir().ops[static_cast<size_t>(i)]) >= 0) in_loop = true;
  f.confidence = in_loop ? 0.8 : 0.6;
  // Relief, cheapest first: lift the register cap, a streaming loop's smaller step, the tile spread
  // over more warps, fewer stages.
  if (budget < 255)
    f.proposals.push_back({"set-maxnreg", fmt::format("drop maxnreg={} (ptxas may use up to 255 registers)", budget),
                           {{"maxnreg", nullptr}, {"from", budget}}});
  auto streaming = largest_streaming_block(ctx);
  if (streaming) {
    const long long block = kStreamingElementsPerThread * 32 * std::max(ir.num_warps(), 1);
    f.evidence.push_back(ir.source(streaming->line,
                                   fmt::format("a loop steps by {} = {}: {} elements per thread in each step's tile",
                                               streaming->name, streaming->value, streaming->per_thread)));
    f.cause += fmt::format("; the loop stepping by {} = {} holds {} elements of each loaded tile per thread",
                           streaming->name, streaming->value, streaming->per_thread);
    f.proposals.push_back({"resize-block",
                           fmt::format("{} = {} ({} elements per thread): the loop streams the same data in more, "
                                       "smaller steps",
                                       streaming->name, block, kStreamingElementsPerThread),
                           {{"constexpr", streaming->name}, {"from", streaming->value}, {"block", block}}});
  }
  if (ir.num_warps() * 2 <= 16)
    f.proposals.push_back({"set-num-warps",
                           fmt::format("launch with num_warps={}: the same tile over twice the threads", ir.num_warps() * 2),
                           {{"num_warps", ir.num_warps() * 2}, {"registers", res.registers}}});
  if (ctx.launch && in_loop && ctx.launch->num_stages() > 2)
    f.proposals.push_back({"set-num-stages",
                           fmt::format("num_stages {} -> {}: one buffered tile fewer per thread",
                                       ctx.launch->num_stages(), ctx.launch->num_stages() - 1),
                           {{"num_stages", ctx.launch->num_stages() - 1}}});
  if (!streaming)
    f.proposals.push_back({kAdvice, "shrink the per-thread state: a smaller tile (BLOCK_N)",
                           {{"registers", res.registers}, {"carried_registers", carried_regs},
                            {"num_warps", ir.num_warps()}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_register_spills_rule() { return std::make_unique<RegisterSpillsRule>(); }

}  // namespace tdx
