// l2-dot-not-wgmma: a tl.dot lowered to mma.sync or FMA instead of Hopper's wgmma.
#include <algorithm>

#include "tritondx/analysis/static_cost.h"
#include "tritondx/ladder/l2_attribution/l2_rule.h"

namespace tdx {
namespace {

using namespace l2;

bool mma_v3_type(const std::string& t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "i8" || t == "f8E4M3FN" || t == "f8E5M2";
}

// The MMAv3 preconditions of AccelerateMatmul (compiler notes §2) that this dot misses.
std::vector<std::string> missed_preconditions(const MlirOp& dot, int num_warps, std::string& fix_param) {
  std::vector<std::string> out;
  if (dot.operand_types.size() < 2 || dot.result_types.empty()) return out;
  const MlirType& a = dot.operand_types[0];
  const MlirType& r = dot.result_types[0];
  const std::string& t = a.element;
  const int bits = std::max(scalar_bits(t), 1);
  if (r.shape.size() != 2) {
    out.push_back(fmt::format("the dot is rank {} (batched); wgmma needs a rank-2 dot", r.shape.size()));
    fix_param = "rank";
    return out;
  }
  const int64_t m = r.shape[0], n = r.shape[1];
  const int64_t k = a.shape.size() == 2 ? a.shape[1] : 0;
  if (t == "f32") {
    const auto* p = dot.attribute("inputPrecision");
    if (!p || p->value.find("ieee") != std::string::npos || p->value == "2 : i32") {
      out.push_back("f32 x f32 with input_precision=\"ieee\": tensor cores need tf32 (or tf32x3) for f32 inputs");
      fix_param = "input_precision";
    }
  } else if (!mma_v3_type(t)) {
    out.push_back(fmt::format("operand type {} has no wgmma form (f16, bf16, tf32, fp8 e4m3/e5m2, i8 have)", t));
    fix_param = "dtype";
  }
  if (num_warps % 4 != 0) {
    out.push_back(fmt::format("num_warps = {} is not a multiple of 4 (a warpgroup)", num_warps));
    fix_param = "num_warps";
  }
  if (m % 64 != 0) {
    out.push_back(fmt::format("BLOCK_M = {} is not a multiple of 64", m));
    fix_param = "BLOCK_M";
  }
  if (n % 8 != 0) {
    out.push_back(fmt::format("BLOCK_N = {} is not a multiple of 8", n));
    fix_param = "BLOCK_N";
  }
  if (k > 0 && k < 256 / bits) {
    out.push_back(fmt::format("BLOCK_K = {} is below {} (256 / {} bits)", k, 256 / bits, bits));
    fix_param = "BLOCK_K";
  }
  return out;
}

class DotNotWgmmaRule final : public L2Rule {
 public:
  std::string_view id() const override { return "l2-dot-not-wgmma"; }
  std::string_view description() const override {
    return "A `tl.dot` is lowered to warp-level `mma.sync` (TTGIR `#ttg.nvidia_mma<{versionMajor = 2`, SASS "
           "HMMA) or to scalar FMA chains (a `#ttg.blocked` dot result, PTX `fma.rn.f32`, SASS FFMA) instead of "
           "Hopper's asynchronous warpgroup MMA (`ttng.warp_group_dot`, PTX `wgmma.mma_async`, SASS HGMMA). The "
           "finding quotes the dot in TTGIR with its result layout, the compiler's \"MMA version 3\" remark, the "
           "PTX and SASS instructions of that line, and names the MMAv3 precondition the dot misses (BLOCK_M not "
           "a multiple of 64, num_warps not a multiple of 4, BLOCK_K too small, an f32 dot with ieee precision, "
           "an unsupported dtype, a batched dot). mma.sync reaches about 60% of the wgmma peak on H200; FMA a "
           "small fraction.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

void DotNotWgmmaRule::check(const KernelContext& ctx, FindingSink& sink) const {
  IrView ir(ctx);
  if (!ir.ready()) return;
  const auto& m = ir.ttgir();
  std::vector<int> reported;
  for (const auto& op : m.ops) {
    if (op.name != "tt.dot" || !op.loc.known() || op.result_types.empty()) continue;
    if (std::find(reported.begin(), reported.end(), op.loc.line) != reported.end()) continue;
    const MlirType& result = op.result_types.front();
    const Layout* layout = ir.layout(result);
    std::string path;
    if (layout && layout->kind == LayoutKind::NvidiaMma) {
      if (layout->version_major >= 3) continue;
      path = "mma.sync";
    } else if (layout && layout->kind == LayoutKind::Blocked) {
      path = "fma";
    } else {
      continue;
    }
    const int line = op.loc.line;
    reported.push_back(line);
    const bool fma = path == "fma";
    auto ptx = ir.ptx_at(line);
    std::vector<const PtxInstruction*> math;
    for (const auto* i : ptx)
      if (fma ? (i->opcode == "fma" && i->has_modifier("f32")) : classify(*i) == InstructionClass::MmaSync)
        math.push_back(i);
    auto sass_all = ir.sass_at(line);
    std::vector<const SassInstruction*> sass;
    for (const auto* i : sass_all)
      if (fma ? i->opcode == "FFMA" : classify(*i) == InstructionClass::MmaSync) sass.push_back(i);

    std::string a_type = op.operand_types.empty() ? "?" : op.operand_types[0].element;
    Finding f = ir.finding_at(line);
    f.symptom = fmt::format("tl.dot ({} x {} -> {} {}) runs on {} instead of wgmma", a_type,
                            op.operand_types.size() > 1 ? op.operand_types[1].element : "?", format_dims(result.shape),
                            result.element, fma ? "FMA (CUDA cores)" : "mma.sync (warp-level MMA)");
    f.evidence.push_back(ir.source(line, "the dot"));
    f.evidence.push_back(ir.op(op, fma ? "tt.dot with a #blocked result: AccelerateMatmul found no MMA form"
                                       : "tt.dot with an #nvidia_mma v2 result, not ttng.warp_group_dot"));
    f.evidence.push_back(ir.layout_definition(*layout, op, fma ? "the accumulator is a plain blocked layout"
                                                               : "versionMajor = 2: mma.sync, not wgmma"));
    if (const Remark* r = ir.remark_at(line, "MMA")) f.evidence.push_back(ir.remark(*r, "AccelerateMatmul's verdict"));
    if (!math.empty())
      f.evidence.push_back(ir.ptx(*math.front(), fmt::format("{} {} instruction(s) on this line, no wgmma.mma_async",
                                                             math.size(), fma ? "fma.rn.f32" : "mma.sync")));
    if (!sass.empty())
      f.evidence.push_back(ir.sass(*sass.front(), fmt::format("{} {} instruction(s) on this line, no HGMMA", sass.size(),
                                                              fma ? "FFMA" : "HMMA")));

    std::string fix;
    auto missed = missed_preconditions(op, ir.num_warps(), fix);
    if (missed.empty()) {
      f.cause = "AccelerateMatmul did not choose MMAv3 for this dot; none of the known preconditions (shape, "
                "num_warps, dtype, precision) explains it";
      f.confidence = 0.5;
    } else {
      f.cause = "AccelerateMatmul tries MMAv3 first on sm_90 and falls back when a precondition fails: ";
      for (size_t i = 0; i < missed.size(); ++i) f.cause += (i ? "; " : "") + missed[i];
      f.cause += fma ? ". Without any MMA form the dot becomes per-thread FMA chains."
                     : ". The fallback is MMAv2 (mma.sync), which is synchronous and reads operands through ldmatrix.";
      f.confidence = 0.85;
    }
    if (ctx.summary && ctx.launch && ctx.target) {
      auto e = estimate_static_cost(*ctx.program, *ctx.summary, *ctx.launch, *ctx.target, ctx.min_bytes, ctx.flops);
      auto bw = [&](const char* key) {
        auto it = ctx.target->ceilings.find(key);
        return it == ctx.target->ceilings.end() ? 0.0 : it->second.value;
      };
      double hbm = bw("hbm_bytes_per_second"), l2 = bw("l2_bytes_per_second");
      double memory = hbm > 0 ? e.hbm_bytes / hbm + (l2 > 0 ? e.l2_bytes / l2 : 0) : 0;
      if (e.flops > 0 && e.compute_peak > 0 && e.best_peak > e.compute_peak) {
        double before = std::max(memory, e.flops / e.compute_peak);
        double after = std::max(memory, e.flops / e.best_peak);
        if (after > 0 && before / after > 1.05) f.estimated_gain = before / after;
      }
    }
    if (fix == "input_precision")
      f.proposals.push_back({"dot-input-precision", "use input_precision=\"tf32\" (or \"tf32x3\" when accuracy needs it)",
                             {{"line", line}, {"input_precision", "tf32"}}});
    else if (fix == "BLOCK_M" || fix == "BLOCK_N" || fix == "BLOCK_K")
      f.proposals.push_back({"wgmma-tile", "choose tile sizes wgmma accepts (BLOCK_M a multiple of 64, BLOCK_N of 8, "
                                            "BLOCK_K >= 256/bits)",
                             {{"line", line}, {"BLOCK_M", std::max<int64_t>(64, (result.shape[0] + 63) / 64 * 64)}}});
    else if (fix == "num_warps")
      f.proposals.push_back({"set-num-warps", "launch with num_warps = 4 or 8", {{"num_warps", 4}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_dot_not_wgmma_rule() { return std::make_unique<DotNotWgmmaRule>(); }

}  // namespace tdx
