// l3-compiler-remark: Triton's own performance remarks and warnings (MLIR_ENABLE_DIAGNOSTICS),
// each attached to its Python line and explained: what the remark means and how to fix it.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tritondx/ladder/l3_compiler/l3_evidence.h"
#include "tritondx/ladder/l3_compiler/rules.h"

namespace tdx {
namespace {

using namespace l3;

struct Explanation {
  std::string category;  // stable key, one finding per (line, category)
  std::string symptom;
  std::string cause;
  double confidence = 0.9;
  RewriteProposal proposal;
};

std::optional<int> number_after(const std::string& text, const std::string& key) {
  std::regex re(key + R"(\s*=?\s*(-?\d+))");
  std::smatch m;
  if (std::regex_search(text, m, re)) return std::stoi(m[1].str());
  return std::nullopt;
}

// `loop_line`: the line of the innermost Python loop around the remark's line, when known.
std::optional<Explanation> explain(const Remark& r, std::optional<int> loop_line) {
  const std::string& msg = r.message;
  Explanation e;
  if (msg.find("vectorization fails") != std::string::npos) {
    int vec = number_after(msg, "vec").value_or(1);
    int origin = number_after(msg, "origin vec").value_or(1);
    auto mask = number_after(msg, "mask is");
    auto elems = number_after(msg, "numElems");
    if (!elems) elems = number_after(msg, "elemsPerThread");
    bool store = msg.find("elemsPerThread") != std::string::npos;
    e.category = "vectorization";
    e.symptom = fmt::format("Triton reports that the {} at line {} is not vectorized: {} element per access for {} "
                            "element(s) per thread",
                            store ? "store" : "load", r.loc.line, vec, elems.value_or(0));
    if (origin > 1 && mask && *mask == 1) {
      e.cause = fmt::format(
          "The load/store lowering (LoadStoreOpToLLVM) could have used {} elements per access from the pointer's "
          "layout and alignment (origin vec = {}), but the mask is constant over only 1 element along the "
          "contiguous dimension (\"mask is 1\"), so every element gets its own predicated instruction. A mask such "
          "as `offs < n` is uniform over 16-element runs only when n is known to be divisible by 16.",
          origin, origin);
      e.proposal = {kAdvice,
                    "make the masked length a multiple of 16 (pad, or an unmasked main body plus a masked tail), or "
                    "drop the mask on full blocks",
                    {{"line", r.loc.line}}};
    } else {
      e.cause = fmt::format(
          "The pointer itself allows only {} element per access (origin vec = {}{}): AxisInfo could not prove the "
          "addresses contiguous and 16-byte aligned (an argument without tt.divisibility = 16, a runtime stride, "
          "`%`/`//` in the index), or the layout gives each thread a single element. See l3-vectorization-lost "
          "for the op where contiguity or alignment was lost.",
          vec, origin, mask && *mask >= 0 ? fmt::format(", mask constancy {}", *mask) : "");
      e.proposal = {kAdvice,
                    "keep the inner index a plain tl.arange with unit stride, pass 16-byte aligned tensors, or add "
                    "tl.multiple_of / tl.max_contiguous hints when they are true",
                    {{"line", r.loc.line}}};
    }
    return e;
  }
  if (msg.find("MMA version 3") != std::string::npos || msg.find("MMA V3") != std::string::npos) {
    e.category = "mma-v3";
    e.symptom = fmt::format("Triton reports that the dot at line {} cannot use MMAv3 (wgmma)", r.loc.line);
    e.cause = "TritonGPUAccelerateMatmul tried MMAv3 first and one of its preconditions failed (num_warps a multiple "
              "of 4, M per CTA a multiple of 64, N a multiple of 8, K >= 256/bits, a 2-D dot, a supported operand "
              "type), so the dot falls back to mma.sync (MMAv2) or FMA. l3-mma-v3-precondition names the failed "
              "condition.";
    e.proposal = {"wgmma-tile", "BLOCK_M a multiple of 64, num_warps 4 or 8, BLOCK_K >= 16 (fp8: 32), 2-D dots",
                  {{"line", r.loc.line}}};
    return e;
  }
  if (msg.find("scheduled before its operands") != std::string::npos) {
    e.category = "pipeline-schedule";
    e.symptom = loop_line ? fmt::format("Triton disabled software pipelining of the loop at line {}: the operation "
                                        "at line {} was scheduled before its operands",
                                        *loop_line, r.loc.line)
                          : fmt::format("Triton disabled software pipelining of a loop: the operation at line {} "
                                        "was scheduled before its operands",
                                        r.loc.line);
    e.cause = "The modulo schedule built by TritonGPUScheduleLoops placed an op in an earlier stage than a value it "
              "needs (typically a loop-carried value updated under a data-dependent condition), so the pipeliner "
              "gave up and the loop runs unpipelined.";
    e.proposal = {kAdvice, "update pointers and loop-carried values unconditionally, and move "
                  "data-dependent control flow out of the loop",
                  {{"line", r.loc.line}}};
    // Triton's "operand defined here" notes name where the late operand comes from: the fix is there.
    std::vector<int> operand_lines;
    for (const auto& n : r.notes)
      if (n.loc.line > 0 && std::find(operand_lines.begin(), operand_lines.end(), n.loc.line) == operand_lines.end())
        operand_lines.push_back(n.loc.line);
    if (!operand_lines.empty()) {
      e.proposal.description = fmt::format("the operand it needs is defined at line(s) {}: compute it "
                                           "unconditionally (or before the loop), and move data-dependent control "
                                           "flow out of the loop",
                                           fmt::join(operand_lines, ", "));
      e.proposal.params["operand_lines"] = operand_lines;
    }
    return e;
  }
  if (msg.find("cannot use vectorized copy") != std::string::npos) {
    e.category = "pipeline-register-copy";
    e.symptom = fmt::format("Triton pipelines the load at line {} through registers instead of cp.async", r.loc.line);
    e.cause = "The load cannot be copied to shared memory in 4-byte or wider pieces, so the pipeliner stages it in "
              "registers, which costs registers and usually performance (Triton: \"severe performance "
              "degradation\").";
    e.proposal = {kAdvice, "make the load at least 4 bytes contiguous and aligned per thread",
                  {{"line", r.loc.line}}};
    return e;
  }
  if (msg.find("Registers will be transposed") != std::string::npos) {
    e.category = "wgmma-operand-transpose";
    e.symptom = fmt::format("Triton transposes a dot operand in registers at line {} and disables its pipelined load",
                            r.loc.line);
    e.cause = "wgmma reads non-16-bit operands (fp8, tf32, int8) only K-major from shared memory; this operand is "
              "laid out the other way, so it is transposed in registers before the shared-memory store and its "
              "load is not pipelined.";
    // "... than the register order for the operand 1. Registers will be transposed ..."
    nlohmann::json params{{"line", r.loc.line}};
    if (auto at = msg.find("for the operand "); at != std::string::npos && at + 16 < msg.size() &&
                                                std::isdigit(static_cast<unsigned char>(msg[at + 16])))
      params["operand"] = msg[at + 16] - '0';
    e.proposal = {"k-major-operand", "store the operand K-contiguous in global memory (Triton's own "
                  "recommendation: a K-major copy made before the launch, or B kept as [N, K])",
                  params};
    return e;
  }
  if (msg.find("fewer loop iterations than pipeline stages") != std::string::npos) {
    e.category = "pipeline-short-loop";
    e.symptom = fmt::format("the loop at line {} has fewer iterations than pipeline stages", r.loc.line);
    e.cause = "The trip count is below num_stages, so the prologue cannot fill the pipeline and the loop is "
              "predicated as a dynamic loop.";
    e.proposal = {"set-num-stages", "use fewer stages for short loops", {{"line", r.loc.line}}};
    return e;
  }
  if (msg.find("dependency conflict") != std::string::npos || msg.find("software pipeliner failed") != std::string::npos) {
    e.category = "pipeline-dependency";
    e.symptom = fmt::format("the software pipeliner failed on the loop at line {} (dependency conflict)", r.loc.line);
    e.cause = "A loop-carried value is needed before the stage that produces it, so the loop is not overlapped.";
    e.proposal = {kAdvice, "update loop-carried values unconditionally", {{"line", r.loc.line}}};
    return e;
  }
  if (r.severity == "warning" || msg.find("Warning") != std::string::npos) {
    e.category = "other";
    e.symptom = fmt::format("Triton emitted a warning at line {}: {}", r.loc.line, msg);
    e.cause = "A compiler diagnostic tritondx has no specific explanation for.";
    e.confidence = 0.3;
    return e;
  }
  return std::nullopt;
}

std::optional<int> innermost_loop_line(const PyNode& function, int line) {
  std::optional<int> found;
  PyModule::walk(function, [&](const PyNode& n) {
    if ((n.type == "For" || n.type == "While") && n.line <= line && line <= n.end_line) found = n.line;
  });
  return found;
}

class CompilerRemarkRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-compiler-remark"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "Triton's own performance remarks and warnings (printed with MLIR_ENABLE_DIAGNOSTICS=warnings,remarks), "
           "attached to their Python line and explained: \"vectorization fails vec = 1 origin vec = 4 ... mask is "
           "1\" (the mask, not the pointer, limits the access width), \"MMA version 3 acceleration not applied\" "
           "(the dot falls back to mma.sync), \"operation scheduled before its operands. Pipelining will be "
           "disabled.\", \"Pipelining load that cannot use vectorized copy\", the forced transposition of a "
           "non-16-bit wgmma operand, and the pipeliner's short-loop and dependency warnings. Each finding quotes "
           "the remark, says what it means and how to fix it.";
  }
  // Remarks come with every compile: no pass dump needed.
  RuleNeeds needs() const override { return {.program = true}; }
  nlohmann::json options() const override { return {{"report_unknown_warnings", report_unknown_}}; }
  void configure(const nlohmann::json& o) override { report_unknown_ = o.value("report_unknown_warnings", report_unknown_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override {
    if (!ctx.program || !ctx.task) return;
    std::set<std::pair<int, std::string>> seen;
    for (const Remark& r : ctx.program->remarks) {
      if (!in_task(ctx, r.loc)) continue;
      auto e = explain(r, ctx.function ? innermost_loop_line(*ctx.function, r.loc.line) : std::nullopt);
      if (!e || (e->category == "other" && !report_unknown_)) continue;
      if (!seen.insert({r.loc.line, e->category}).second) continue;
      Finding f;
      f.loc = SourceLoc{ctx.task->path, r.loc.line, r.loc.col};
      f.symptom = e->symptom;
      f.evidence.push_back(remark_evidence(r, "Triton's diagnostic at this line"));
      f.evidence.push_back(ctx.source_evidence(r.loc.line, "the line it is about"));
      for (const auto& n : r.notes)
        if (n.loc.line > 0 && in_task(ctx, n.loc))
          f.evidence.push_back(ctx.source_evidence(n.loc.line, "Triton's note: " + n.message));
      f.cause = e->cause;
      f.confidence = e->confidence;
      if (!e->proposal.description.empty()) f.proposals.push_back(e->proposal);
      sink.report(std::move(f));
    }
  }

 private:
  bool report_unknown_ = true;
};

}  // namespace

std::unique_ptr<Rule> make_compiler_remark_rule() { return std::make_unique<CompilerRemarkRule>(); }

}  // namespace tdx
