// l2-narrow-global-access: global loads/stores emitted narrower than the data allows.
#include <algorithm>
#include <map>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/ladder/l2_attribution/l2_rule.h"
#include "tritondx/ladder/l2_attribution/strides.h"

namespace tdx {
namespace {

using namespace l2;

// The memory ops of one kind on one source line.
struct LineAccess {
  int line = 0;
  std::string kind;  // "load" | "store" | "async-copy"
  std::vector<const MlirOp*> ops;
};

InstructionClass ptx_class(const std::string& kind) {
  if (kind == "store") return InstructionClass::GlobalStore;
  if (kind == "async-copy") return InstructionClass::AsyncCopy;
  return InstructionClass::GlobalLoad;
}

std::string ptx_name(const std::string& kind) {
  if (kind == "store") return "st.global";
  if (kind == "async-copy") return "cp.async";
  return "ld.global";
}

std::string vector_name(const std::string& kind, int bits) {
  if (kind == "async-copy") return fmt::format("cp.async of {} bytes", bits / 8);
  if (bits >= 128) return ptx_name(kind) + ".v4.b32";
  if (bits == 64) return ptx_name(kind) + ".v2.b32";
  return fmt::format("{}.b{}", ptx_name(kind), bits);
}

const MlirType* pointer_type(const MlirOp& op) {
  if (!op.operand_types.empty() && op.operand_types.front().is_pointer) return &op.operand_types.front();
  return nullptr;
}

class NarrowGlobalAccessRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-narrow-global-access"; }
  std::string_view description() const override {
    return "A global load or store is emitted with PTX instructions narrower than 128 bits (`ld.global.b32` "
           "where `ld.global.v4.b32` would do) although each thread handles enough contiguous elements for "
           "wider ones. The evidence ties the source line to its TTGIR op and #blocked layout (sizePerThread), "
           "the \"vectorization fails\" remark when Triton emitted one, the PTX and the SASS instructions; the "
           "cause names what clamped the vector width (the mask's constancy, the pointer's known alignment, or "
           "the layout), from the replayed axis-info analysis. Narrow accesses issue several times more memory "
           "instructions per byte and keep memory-bound kernels below their bandwidth.";
  }
  nlohmann::json options() const override { return {{"min_elements_per_thread", min_elements_per_thread_}}; }
  void configure(const nlohmann::json& o) override {
    min_elements_per_thread_ = o.value("min_elements_per_thread", min_elements_per_thread_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  int min_elements_per_thread_ = 2;  // a thread must own at least this many elements for a wider access
};

// The replayed axis-info verdict for the TTIR memory op on the same line and of the same kind.
const MemoryVectorization* axis_verdict(const KernelContext& ctx, int line, const std::string& kind) {
  if (!ctx.axis_info || !ctx.program || !ctx.program->ttir) return nullptr;
  const AxisInfoAnalysis* a = nullptr;
  try {
    a = &ctx.axis_info();
  } catch (const std::exception&) {
    return nullptr;
  }
  std::string want = kind == "async-copy" ? "load" : kind;
  for (const auto& mv : a->memory_ops()) {
    if (mv.op_index < 0) continue;
    const MlirOp& op = a->module().ops[static_cast<size_t>(mv.op_index)];
    if (op.loc.line == line && (mv.kind == want || mv.kind == kind)) return &mv;
  }
  return nullptr;
}

void NarrowGlobalAccessRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready() || !ir.ptx()) return;
  const auto& m = ir.ttgir();
  std::map<std::pair<int, std::string>, LineAccess> groups;
  for (const auto& op : m.ops) {
    std::string kind = op.name == "tt.load" ? "load"
                       : op.name == "tt.store" ? "store"
                       : op.name == "ttg.async_copy_global_to_local" ? "async-copy"
                                                                     : "";
    if (kind.empty() || !op.loc.known()) continue;
    const MlirType* p = pointer_type(op);
    if (!p || !p->is_tensor) continue;
    auto& g = groups[{op.loc.line, kind}];
    g.line = op.loc.line;
    g.kind = kind;
    g.ops.push_back(&op);
  }
  std::vector<int> reported;
  for (const auto& [key, g] : groups) {
    if (std::find(reported.begin(), reported.end(), g.line) != reported.end()) continue;
    const MlirOp& op = *g.ops.front();
    const MlirType& ptr = *pointer_type(op);
    const int bits = scalar_bits(ptr.pointee);
    if (bits <= 0 || bits > 64) continue;
    const Layout* layout = ir.layout(ptr);
    if (!layout || layout->kind != LayoutKind::Blocked || layout->size_per_thread.empty()) continue;
    const size_t fast = layout->order.empty() ? layout->size_per_thread.size() - 1 : static_cast<size_t>(layout->order[0]);
    if (fast >= ptr.shape.size()) continue;
    const int64_t spt = layout->size_per_thread[fast];
    const int64_t per_thread = std::max<int64_t>(ptr.num_elements() / ir.threads_per_cta(), 1);
    if (per_thread < min_elements_per_thread_) continue;

    auto instrs = ir.ptx_at(g.line, ptx_class(g.kind));
    if (instrs.empty()) continue;
    int widest = 0;
    std::map<int, int> widths;
    for (const auto* i : instrs) {
      widest = std::max(widest, i->access_bits());
      ++widths[i->access_bits()];
    }
    if (widest <= 0 || widest >= 128) continue;

    const MemoryVectorization* mv = axis_verdict(ctx, g.line, g.kind);
    int64_t contiguity = mv ? mv->contiguity : spt;
    if (mv && mv->limited_by == "contiguity") {
      // Contiguous in memory for this launch although the compiler cannot prove it (a run-time
      // unit stride)? Otherwise the access is strided: l2-uncoalesced-access territory.
      StrideAnalysis strides(ir);
      Strides st = strides.of(op.operands[0]);
      if (!st.known(fast) || (st.per_dim[fast] != 1 && st.per_dim[fast] != -1)) continue;
      contiguity = ptr.shape[fast];
    }
    int64_t achievable = std::min<int64_t>({128 / bits, contiguity, per_thread, ptr.shape[fast]});
    if (achievable * bits <= widest) continue;
    reported.push_back(g.line);

    const int64_t ideal_bits = achievable * bits;
    Finding f = ir.finding_at(g.line);
    f.symptom = fmt::format("{} {} emitted {} time(s) at {} bits each where {}-bit accesses are possible ({} {} per "
                            "thread)",
                            ptr.pointee, g.kind, instrs.size(), widest, ideal_bits, per_thread,
                            per_thread == 1 ? "element" : "elements");
    f.evidence.push_back(ir.source(g.line, fmt::format("the {}", g.kind)));
    f.evidence.push_back(ir.op(op, fmt::format("{} elements of {} ({} bits each), {} threads", ptr.num_elements(),
                                               ptr.pointee, bits, ir.threads_per_cta())));
    f.evidence.push_back(ir.layout_definition(
        *layout, op,
        fmt::format("sizePerThread[{}] = {} along the fastest dimension (order[0] = {})", fast, spt, fast)));
    const Remark* remark = ir.remark_at(g.line, "vectorization fails");
    if (remark) f.evidence.push_back(ir.remark(*remark, "the lowering could not vectorize this access"));
    std::string counts;
    for (const auto& [w, n] : widths) counts += fmt::format("{}{} x {}-bit", counts.empty() ? "" : ", ", n, w);
    f.evidence.push_back(ir.ptx(*instrs.front(), fmt::format("{} {} instruction(s) on this line: {}", instrs.size(),
                                                             ptx_name(g.kind), counts)));
    auto sass = ir.sass_at(g.line, g.kind == "store" ? InstructionClass::GlobalStore
                                   : g.kind == "async-copy" ? InstructionClass::AsyncCopy
                                                            : InstructionClass::GlobalLoad);
    if (!sass.empty())
      f.evidence.push_back(ir.sass(*sass.front(), fmt::format("{} SASS memory instruction(s) on this line", sass.size())));

    std::string limiter = mv ? mv->limited_by : std::string();
    if (limiter == "none" || limiter.empty()) {
      if (remark && remark->message.find("mask is 1") != std::string::npos) limiter = "mask";
      else if (spt * bits <= widest) limiter = "layout";
      else limiter = "unknown";
    }
    std::string why;
    if (limiter == "contiguity")
      why = fmt::format("the pointer is contiguous along dimension {} for this launch (stride 1), but the stride is a "
                        "run-time value and AxisInfo keeps contiguity through a multiply only by the constant 1, so "
                        "the compiler must assume every element is separate",
                        fast);
    else if (limiter == "mask")
      why = fmt::format("the mask's constancy along dimension {} is {}, and LoadStoreOpToLLVM clamps the vector "
                        "width to it: every element gets its own predicate",
                        fast, mv && mv->mask_constancy > 0 ? mv->mask_constancy : 1);
    else if (limiter == "alignment")
      why = fmt::format("the pointer is only known to be aligned to {} element(s), so wider accesses could be "
                        "misaligned",
                        mv ? mv->divisibility : 1);
    else if (limiter == "layout")
      why = fmt::format("the #blocked layout gives each thread sizePerThread[{}] = {} contiguous element(s) "
                        "(Coalesce caps it by the elements per thread and the axis info)",
                        fast, spt);
    else
      why = "the lowering emitted narrower accesses than the layout allows";
    f.cause = fmt::format("{} instead of {}: {}.", vector_name(g.kind, widest), vector_name(g.kind, ideal_bits), why);
    if (limiter != "mask" && remark && remark->message.find("mask is 1") != std::string::npos)
      f.cause += " The mask is per element as well (the remark reports mask constancy 1), so fixing the alignment "
                 "alone would not widen the access.";
    if (mv && !mv->explanation.empty()) f.cause += " " + mv->explanation;
    f.confidence = limiter == "unknown" ? 0.5 : 0.8;
    // The launch's value of the argument at the root of the lost alignment (0: none known).
    const long long root_value = mv && !mv->root_argument.empty() && ctx.launch
                                     ? ctx.launch->int_arg(mv->root_argument).value_or(0)
                                     : 0;
    // A mask computed from loaded data (a gather's index check, a bound read from memory) keeps
    // per-element predicates whatever the launch's shape: no shape specialization removes it.
    const MlirOp* data = limiter == "mask" ? loaded_source(m, mask_operand(op)) : nullptr;
    if (data)
      f.cause += fmt::format(" The mask depends on the values loaded at line {} (`{}`), so its constancy is 1 for "
                             "any shape of the launch.",
                             data->loc.line, op_quote(*data));
    if (data)
      f.proposals.push_back({kAdvice,
                             fmt::format("the mask reads data loaded at line {}: a shape specialization (EVEN) cannot "
                                         "remove it; where those lanes may be written or read unconditionally "
                                         "(out-of-range values rejected before the launch), drop that term from this "
                                         "access's mask",
                                         data->loc.line),
                             {{"line", g.line}, {"loaded_at", data->loc.line}}});
    else if (limiter == "mask")
      f.proposals.push_back({"even-shape-heuristic",
                             "compile an unmasked variant for shapes that are multiples of the block (a constexpr "
                             "EVEN flag from @triton.heuristics) so full blocks load without per-element predicates",
                             {{"line", g.line}, {"vector_bits", ideal_bits}}});
    else if (limiter == "alignment" && root_value % 16 != 0)
      // The data is not aligned for this launch: no hint can prove what is not true.
      f.proposals.push_back({kAdvice,
                             fmt::format("{0}={1} is not a multiple of 16, so no hint can prove the alignment; pad "
                                         "the tensor so {0} is a multiple of 16 elements (e.g. allocate rows of a "
                                         "padded width and pass a view), then Triton specializes it",
                                         mv->root_argument, root_value),
                             {{"line", g.line}, {"param", mv->root_argument}}});
    else if (limiter == "alignment" && mv && !mv->root_argument.empty())
      // The recipe lets the JIT specialize the argument at the root of the lost alignment.
      f.proposals.push_back({"add-multiple-of-hint",
                             fmt::format("let Triton specialize {} (tt.divisibility = 16 when its value is a multiple "
                                         "of 16), so the addresses built from it are known to be aligned",
                                         mv->root_argument),
                             {{"line", g.line}, {"elements", 128 / bits}, {"param", mv->root_argument}}});
    else if (limiter == "alignment")
      f.proposals.push_back({kAdvice,
                             "assert the alignment the data has (tl.multiple_of on the offsets, or 16-byte aligned "
                             "strides and base pointers so Triton specializes them)",
                             {{"line", g.line}, {"elements", 128 / bits}}});
    else if (limiter == "contiguity")
      f.proposals.push_back({kAdvice,
                             "drop the multiplication by the unit stride (or pass it as tl.constexpr / let Triton "
                             "specialize it) so the compiler sees contiguous offsets",
                             {{"line", g.line}}});
    else if (limiter == "layout")
      f.proposals.push_back({"grow-block", "give each thread more contiguous elements (a larger block or fewer warps)",
                             {{"line", g.line}, {"elements_per_thread", 128 / bits}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_narrow_global_access_rule() { return std::make_unique<NarrowGlobalAccessRule>(); }

}  // namespace tdx
