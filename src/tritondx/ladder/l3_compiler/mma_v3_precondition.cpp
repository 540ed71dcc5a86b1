// l3-mma-v3-precondition: a tl.dot that Triton did not lower to wgmma (ttng.warp_group_dot) on
// sm_90, with the MMAv3 precondition of supportMMA (lib/Analysis/Utility.cpp) that failed, read
// from the dot as TritonGPUAccelerateMatmul saw it, and a what-if compile changing exactly that.
#include <utility>
#include <set>

#include <fmt/format.h>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_snapshots.h"
#include "tritondx/ladder/l3_compiler/l3_evidence.h"
#include "tritondx/ladder/l3_compiler/rules.h"

namespace tdx {
namespace {

using namespace l3;

// The operand and result types of `tt.dot %a, %b, %c ... : A * B -> C`.
struct DotTypes {
  MlirType a, b, c;
  bool ok = false;
};

DotTypes dot_types(const MlirOp& op) {
  DotTypes t;
  std::string q = op_quote(op);
  size_t colon = q.rfind(" : tensor<");
  if (colon == std::string::npos) return t;
  std::string_view types = std::string_view(q).substr(colon + 3);
  size_t star = types.find(" * ");
  size_t arrow = types.find(" -> ");
  if (star == std::string_view::npos || arrow == std::string_view::npos || arrow < star) return t;
  auto a = parse_mlir_type(types.substr(0, star));
  auto b = parse_mlir_type(types.substr(star + 3, arrow - star - 3));
  auto c = parse_mlir_type(types.substr(arrow + 4));
  if (!a || !b || !c) return t;
  t.a = std::move(*a), t.b = std::move(*b), t.c = std::move(*c);
  t.ok = t.a.shape.size() >= 2 && t.c.shape.size() >= 2;
  return t;
}

bool is_fp8(std::string_view e) { return e.starts_with("f8E"); }

// One failed MMAv3 precondition.
struct Failure {
  std::string what;    // "num_warps = 2 is not a multiple of 4"
  std::string why;     // the rule in Triton's words
  std::string fix;
  nlohmann::json what_if;  // the one-change compile that lifts it (null if none)
  RecipeId recipe;
  nlohmann::json params;
};

// A constexpr of the launch whose value is `value` and whose name mentions `dim` ("M", "K").
std::string constexpr_for(const KernelContext& ctx, long long value, std::string_view dim) {
  if (!ctx.launch || !ctx.launch->constexprs.is_object()) return {};
  std::string found;
  int matches = 0;
  for (const auto& [name, v] : ctx.launch->constexprs.items()) {
    if (!v.is_number_integer() || v.get<long long>() != value) continue;
    std::string upper;
    for (char c : name) upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (upper.ends_with(std::string("_") + std::string(dim)) || upper == std::string(dim) ||
        upper.ends_with(std::string(dim))) {
      found = name;
      ++matches;
    }
  }
  return matches == 1 ? found : std::string();
}

std::vector<Failure> failed_preconditions(const KernelContext& ctx, const MlirOp& dot, const DotTypes& t, int warps) {
  std::vector<Failure> out;
  const std::string& ea = t.a.element;
  int bits = element_type_bits(ea);
  int64_t m = t.c.shape[t.c.shape.size() - 2], n = t.c.shape.back(), k = t.a.shape.back();
  std::string q = op_quote(dot);
  bool f32 = ea == "f32" && t.b.element == "f32";
  if (f32 && q.find("inputPrecision = ieee") != std::string::npos) {
    out.push_back({"f32 x f32 with input_precision = \"ieee\"",
                   "supportMMA accepts f32 operands only with TF32 input precision, for every MMA version, so the "
                   "dot falls back to FMA instructions",
                   "use input_precision=\"tf32\" (the default) or \"tf32x3\" when accuracy matters, or cast the "
                   "operands to bf16/fp16",
                   nullptr, "dot-input-precision", {{"input_precision", "tf32"}}});
  }
  if (bits > 0 && k < 256 / bits) {
    nlohmann::json change;
    std::string name = constexpr_for(ctx, k, "K");
    if (!name.empty()) change = {{"constexprs", {{name, 256 / bits}}}};
    out.push_back({fmt::format("K = {} is below 256/{} = {} for {} operands", k, bits, 256 / bits, ea),
                   "wgmma needs K >= 256 / element bits (16 for 16-bit types, 32 for 8-bit)",
                   fmt::format("BLOCK_K >= {}", 256 / bits), change, "wgmma-tile",
                   {{"dim", "K"}, {"constexpr", name}, {"value", 256 / bits}}});
  }
  if (t.c.shape.size() == 3)
    out.push_back({"the dot is batched (rank 3)", "MMAv3 falls back to MMAv2 for 3-D dots",
                   "loop over the batch and issue 2-D dots", nullptr, kAdvice, nlohmann::json::object()});
  if (warps % 4 != 0)
    out.push_back({fmt::format("num_warps = {} is not a multiple of 4", warps),
                   "a wgmma is issued by a warp group of 4 warps, so num_warps must be a multiple of 4",
                   "launch with num_warps=4 or 8", nlohmann::json{{"num_warps", 4}}, "set-num-warps",
                   {{"num_warps", 4}}});
  if (m % 64 != 0) {
    nlohmann::json change;
    std::string name = constexpr_for(ctx, m, "M");
    if (!name.empty()) change = {{"constexprs", {{name, 64}}}};
    out.push_back({fmt::format("M per CTA = {} is not a multiple of 64", m),
                   "a warp group's wgmma covers 64 rows of M, so M per CTA must be a multiple of 64",
                   "BLOCK_M = 64, 128, ...", change, "wgmma-tile",
                   {{"dim", "M"}, {"constexpr", name}, {"value", 64}}});
  }
  if (n % 8 != 0)
    out.push_back({fmt::format("N = {} is not a multiple of 8", n), "wgmma N must be a multiple of 8",
                   "BLOCK_N a multiple of 8 (>= 16)", nullptr, "wgmma-tile", {{"dim", "N"}, {"value", 16}}});
  bool type_ok = is_fp8(ea) ? (ea == "f8E5M2" || ea == "f8E4M3FN")
                            : (ea == "f16" || ea == "bf16" || ea == "f32" || ea == "i8");
  if (!type_ok)
    out.push_back({fmt::format("operand type {} is not a wgmma type", ea),
                   "MMAv3 takes f16, bf16, f32 (as tf32), fp8 e4m3fn/e5m2 or i8 operands",
                   "cast the operands to fp16/bf16", nullptr, kAdvice, {{"dtype", "fp16"}}});
  if (is_fp8(ea) && t.c.element == "f32")
    if (auto acc = dot.int_attribute("maxNumImpreciseAcc"); acc && *acc < 32)
      out.push_back({fmt::format("fp8 with an f32 accumulator and max_num_imprecise_acc = {}", *acc),
                     "MMAv3 cannot accumulate fp8 products in full f32 precision inside the instruction "
                     "(max_num_imprecise_acc < 32)",
                     "allow imprecise accumulation (max_num_imprecise_acc >= 32, the sm_90 default)", nullptr,
                     kAdvice, {{"max_num_imprecise_acc", 32}}});
  return out;
}

class MmaV3PreconditionRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-mma-v3-precondition"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "A `tl.dot` is not lowered to Hopper's wgmma (`ttng.warp_group_dot`) but to mma.sync (MMAv2) or FMA, "
           "and the rule names the MMAv3 precondition that failed, read from the dot as "
           "TritonGPUAccelerateMatmul saw it in the pass dump: f32 operands without TF32, K below 256/bits, a "
           "rank-3 dot, num_warps not a multiple of 4, M per CTA not a multiple of 64, N not a multiple of 8, an "
           "unsupported operand type, or fp8 with exact f32 accumulation. Triton's remark \"MMA version 3 "
           "acceleration not applied\" on that line is quoted when present. A what-if compile that changes "
           "exactly the failed parameter (num_warps, BLOCK_M, BLOCK_K) checks that the dot then becomes a "
           "warp_group_dot.";
  }
  RuleNeeds needs() const override { return {.program = true, .pass_dumps = true, .what_if = true}; }
  nlohmann::json options() const override { return {{"what_if", what_if_}}; }
  void configure(const nlohmann::json& o) override { what_if_ = o.value("what_if", what_if_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool what_if_ = true;
};

void MmaV3PreconditionRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.program || !ctx.program->ttgir || !ctx.program->passes || !ctx.task) return;
  if (ctx.program->ttgir->target().find("cuda:9") == std::string::npos) return;  // wgmma exists on sm_90 only
  const MlirModule& final_ir = *ctx.program->ttgir;
  const PassDump& dump = *ctx.program->passes;
  int step = find_step(dump, "TritonGPUAccelerateMatmul");
  const PassSnapshot* pre_snap = snapshot_before(dump, step);
  std::optional<MlirModule> pre = pre_snap ? parse_snapshot(*pre_snap) : std::nullopt;
  if (!pre) return;
  int warps = num_warps(ctx);
  std::set<int> reported;
  for (const auto& op : final_ir.ops) {
    if (op.name != "tt.dot") continue;
    int line = task_line(ctx, op);
    if (line == 0 || !reported.insert(line).second) continue;
    const MlirOp* before = nullptr;
    for (const auto& p : pre->ops)
      if (p.name == "tt.dot" && p.loc == op.loc) {
        before = &p;
        break;
      }
    if (!before) continue;
    DotTypes t = dot_types(*before);
    if (!t.ok) continue;
    auto failures = failed_preconditions(ctx, *before, t, warps);
    if (failures.empty()) continue;

    std::string lowered = "FMA instructions";
    if (!op.result_types.empty())
      if (const Layout* l = final_ir.layout(op.result_types[0].encoding); l && l->kind == LayoutKind::NvidiaMma)
        lowered = fmt::format("mma.sync (MMAv{})", l->version_major);
    Finding f;
    f.loc = SourceLoc{ctx.task->path, line, 0};
    f.symptom = fmt::format("tl.dot at line {} runs on {} instead of wgmma: {}", line, lowered, failures[0].what);
    f.evidence.push_back(ctx.source_evidence(line, "the dot"));
    f.evidence.push_back(snapshot_evidence(*pre_snap, *before,
                                           fmt::format("IR before {}: the dot it had to lower ({} x {} -> {}, "
                                                       "num_warps = {})",
                                                       pass_label(dump.steps[static_cast<size_t>(step)]), t.a.text,
                                                       t.b.text, t.c.text, warps)));
    f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, op, fmt::format("final TTGIR: still a tt.dot, lowered to {}", lowered)));
    for (const auto& r : ctx.program->remarks)
      if (r.loc.line == line && (r.message.find("MMA version 3") != std::string::npos ||
                                 r.message.find("MMA V3") != std::string::npos)) {
        f.evidence.push_back(remark_evidence(r, "Triton's own remark from AccelerateMatmul (getMMAVersionSafe)"));
        break;
      }
    std::string cause;
    for (const auto& fl : failures) cause += fmt::format("{}: {}. ", fl.what, fl.why);
    f.cause = cause + "sm_90 tries MMAv3 first and falls back to MMAv2 (or FMA) when any precondition fails.";
    f.confidence = 0.85;
    // One wgmma-tile proposal fixes every failed shape precondition at once (the first one's params).
    bool tile_proposed = false;
    for (const auto& fl : failures) {
      if (fl.recipe == RecipeId("wgmma-tile") && std::exchange(tile_proposed, true)) continue;
      f.proposals.push_back({fl.recipe, fl.fix, fl.params});
    }

    // Confirm the first failure that a launch change can lift, when it is the only one.
    const Failure* testable = nullptr;
    for (const auto& fl : failures)
      if (!fl.what_if.is_null()) {
        testable = &fl;
        break;
      }
    if (what_if_ && ctx.what_if && testable && failures.size() == 1) {
      WhatIfResult r = ctx.what_if(testable->what_if);
      if (!r.program || !r.program->ttgir) {
        f.evidence.push_back(what_if_note(testable->what_if, "what-if compile failed: " + r.error));
      } else {
        const MlirOp* wg = nullptr;
        for (const auto& w : r.program->ttgir->ops)
          if (w.name == "ttng.warp_group_dot" && source_line(w, ctx.task->path) == line) {
            wg = &w;
            break;
          }
        if (wg) {
          f.evidence.push_back(what_if_evidence(
              *wg, fmt::format("what-if {}: the dot becomes ttng.warp_group_dot (wgmma)", testable->what_if.dump())));
          f.confidence = 0.97;
          f.cause += fmt::format(" Confirmed: with {} the dot is lowered to wgmma.", testable->what_if.dump());
        } else {
          f.evidence.push_back(
              what_if_note(testable->what_if, "what-if: the dot is still not a warp_group_dot; another condition holds"));
          f.confidence = 0.6;
        }
      }
    }
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_mma_v3_precondition_rule() { return std::make_unique<MmaV3PreconditionRule>(); }

}  // namespace tdx
