// l3-vectorization-lost: a global load/store is narrower than 128 bits because Triton's
// AxisInfo lattice lost contiguity, alignment or mask constancy somewhere on the pointer's or
// mask's def chain; the replay names that op, the PTX shows the narrow access, and a what-if
// compile (tt.divisibility on the root argument, or fewer warps) confirms the cause.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/analysis/axis_info_internal.h"
#include "tritondx/ladder/context.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/ladder/l3_compiler/rules.h"
#include "tritondx/source/retiling.h"

namespace tdx {
namespace {

bool is_kind(const PtxInstruction& i, const std::string& kind) {
  if (kind == "load") return i.opcode == "ld" && i.state_space == "global";
  if (kind == "store") return i.opcode == "st" && i.state_space == "global";
  if (kind == "async-copy")  // copies only: commit_group / wait_group move nothing
    return i.opcode == "cp" && i.has_modifier("async") && !i.has_modifier("bulk") && i.access_bits() > 0;
  return false;
}

// PTX memory instructions of one kind whose .loc is the source line.
std::vector<const PtxInstruction*> ptx_at(const Program& program, const std::string& source_file, int line,
                                          const std::string& kind) {
  std::vector<const PtxInstruction*> out;
  if (!program.ptx) return out;
  for (const PtxInstruction& i : program.ptx->instructions)
    if (i.loc.line == line && is_kind(i, kind) && (source_file.empty() || same_source_file(i.loc.file, source_file)))
      out.push_back(&i);
  return out;
}

int widest_bits(const std::vector<const PtxInstruction*>& instrs) {
  int w = 0;
  for (const PtxInstruction* i : instrs) w = std::max(w, i->access_bits());
  return w;
}

std::string trim_ptx(const std::string& text) {
  std::string t = text;
  size_t b = t.find_first_not_of(" \t");
  if (b != std::string::npos) t = t.substr(b);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
  return t;
}

std::string kind_plural(const std::string& kind) {
  if (kind == "store") return "stores";
  if (kind == "async-copy") return "async copies (cp.async)";
  return "loads";
}

const Remark* remark_at(const Program& p, int line) {
  for (const Remark& r : p.remarks)
    if (r.loc.line == line && r.message.find("vectorization fails") != std::string::npos) return &r;
  return nullptr;
}

bool has_divisibility_hint(const KernelContext& ctx, const std::string& arg) {
  if (!ctx.launch || !ctx.launch->attrs.is_object() || !ctx.launch->attrs.contains(arg)) return false;
  for (const auto& a : ctx.launch->attrs[arg])
    if (a.is_array() && a.size() == 2 && a[0] == "tt.divisibility") return true;
  return false;
}

class VectorizationLostRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-vectorization-lost"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "A global load, store or cp.async is emitted narrower than 128 bits because Triton's AxisInfo "
           "analysis could not prove the pointer contiguous or aligned, or the mask uniform, over enough "
           "elements. The rule replays AxisInfo (Triton 3.6's lattice rules) over the TTGIR, predicts the vector "
           "width the Coalesce pass and the load/store lowering pick, checks it against the PTX instructions of "
           "the line, and walks the pointer's or mask's def chain back to the op where the limiting property was "
           "lost (e.g. `arith.cmpi slt %offs, %n` with n lacking tt.divisibility = 16, `arith.remsi` by a runtime "
           "value, a multiply by a runtime stride). When what-if compiles are allowed it recompiles with the root "
           "argument assumed divisible by 16 (or with fewer warps for a layout limit) and records whether the "
           "accesses became wider.";
  }
  RuleNeeds needs() const override {
    RuleNeeds n;
    n.program = true;
    n.what_if = true;
    return n;
  }
  nlohmann::json options() const override {
    return {{"what_if", what_if_}, {"report_layout_limits", report_layout_limits_}};
  }
  void configure(const nlohmann::json& o) override {
    what_if_ = o.value("what_if", what_if_);
    report_layout_limits_ = o.value("report_layout_limits", report_layout_limits_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool what_if_ = true;              // confirm the cause with a what-if compile when allowed
  bool report_layout_limits_ = true;  // also report accesses limited only by the layout (too many threads)
};

struct WhatIfOutcome {
  bool ran = false;
  bool confirmed = false;
  std::string error;
  int bits = 0;
  const PtxInstruction* instr = nullptr;
  std::optional<Program> program;  // keeps instr alive
};

void VectorizationLostRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.program || !ctx.program->ttgir || !ctx.program->ptx) return;
  const Program& program = *ctx.program;
  const MlirModule& m = *program.ttgir;
  const std::string source_file = ctx.task ? ctx.task->path : std::string();
  AxisInfoAnalysis a = AxisInfoAnalysis::run(m);

  // One candidate per source line: its narrowest limited access.
  std::map<int, const MemoryVectorization*> by_line;
  for (const MemoryVectorization& mv : a.memory_ops()) {
    if (mv.kind == "atomic" || mv.limited_by == "none" || mv.predicted_vec >= mv.max_vec) continue;
    if (mv.limited_by == "layout" && !report_layout_limits_) continue;
    const MlirOp& op = m.ops[static_cast<size_t>(mv.op_index)];
    if (!op.loc.known() || (!source_file.empty() && !same_source_file(op.loc.file, source_file))) continue;
    auto& slot = by_line[op.loc.line];
    if (!slot || mv.predicted_vec < slot->predicted_vec) slot = &mv;
  }

  std::map<std::string, std::shared_ptr<WhatIfOutcome>> what_ifs;
  for (const auto& [line, mv] : by_line) {
    const MlirOp& op = m.ops[static_cast<size_t>(mv->op_index)];
    auto instrs = ptx_at(program, source_file, line, mv->kind);
    if (instrs.empty()) continue;  // no PTX evidence on this line
    const int bits = mv->element_bits;
    const int actual = widest_bits(instrs);
    const int max_bits = mv->max_vec * bits;
    if (bits <= 0 || actual <= 0 || actual >= max_bits) continue;  // the PTX is already wide
    const int actual_vec = std::max(actual / bits, 1);
    const int ptr = a.operand_definition(op.index, 0);
    std::string base = axis::pointer_base(a, ptr);
    std::string what = base.empty() ? (op.loc_name.empty() ? std::string("the tensor") : op.loc_name) : base;

    Finding f;
    f.loc = op.loc;
    f.loc.file = source_file.empty() ? op.loc.file : source_file;
    f.symptom = fmt::format("{} of {} are {}-bit (vec={}) where {}-bit (vec={}) is possible", kind_plural(mv->kind), what,
                            actual, actual_vec, max_bits, mv->max_vec);
    f.evidence.push_back(ctx.source_evidence(line, fmt::format("the {}", mv->kind == "store" ? "store" : "load")));
    f.evidence.push_back(ctx.op_evidence(
        Stage::Ttgir, op,
        fmt::format("replayed AxisInfo: pointer contiguity {}, alignment {} element(s){}; layout gives {} contiguous "
                    "element(s) per thread along dim {} -> vec = {}",
                    mv->contiguity, mv->divisibility,
                    mv->mask_constancy ? fmt::format(", mask constancy {}", mv->mask_constancy) : std::string(),
                    mv->layout_vec == 0 ? std::string("?") : std::to_string(mv->layout_vec), mv->order0,
                    mv->predicted_vec)));
    {
      EvidenceLink e;
      e.stage = Stage::Ptx;
      e.loc = instrs.front()->loc;
      e.ir_line = instrs.front()->line;
      e.quote = trim_ptx(instrs.front()->text);
      e.note = fmt::format("{} {} instruction(s) on this line, widest {} bits", instrs.size(),
                           mv->kind == "async-copy" ? "cp.async" : mv->kind == "store" ? "st.global" : "ld.global",
                           actual);
      f.evidence.push_back(std::move(e));
    }
    if (const Remark* r = remark_at(program, line)) {
      EvidenceLink e;
      e.stage = Stage::Remark;
      e.loc = r->loc;
      e.quote = r->message;
      e.note = "Triton's own remark from the load lowering";
      f.evidence.push_back(std::move(e));
    }
    const MlirOp* culprit = mv->culprit_op >= 0 ? &m.ops[static_cast<size_t>(mv->culprit_op)] : nullptr;
    if (culprit && culprit != &op) {
      f.evidence.push_back(ctx.op_evidence(
          Stage::Ttgir, *culprit,
          fmt::format("{} lost here{}", mv->property,
                      mv->root_note.empty() ? std::string() : fmt::format(" ({})", mv->root_note))));
    }
    f.cause = mv->explanation;

    // What-if: assume the root argument divisible by 16, or use fewer warps for a layout limit.
    nlohmann::json change;
    if ((mv->limited_by == "alignment" || mv->limited_by == "mask") && !mv->root_argument.empty() &&
        !has_divisibility_hint(ctx, mv->root_argument)) {
      change = {{"assume_divisible", nlohmann::json::array({mv->root_argument})}};
    } else if (mv->limited_by == "layout" && ctx.launch) {
      const MlirType* pt = ptr >= 0 ? a.definitions()[static_cast<size_t>(ptr)].type : nullptr;
      int64_t elems = pt ? pt->num_elements() : 0;
      int warps = ctx.launch->num_warps();
      int want = static_cast<int>(std::max<int64_t>(1, elems / (32 * std::max(mv->max_vec, 1))));
      int w = 1;
      while (w * 2 <= want) w *= 2;
      if (elems > 0 && w < warps) change = {{"num_warps", w}};
    }
    double confidence = 0.8;
    bool joint_confirmed = false;
    if (!change.is_null() && what_if_ && ctx.what_if) {
      // One compile per distinct change, shared by the lines that ask for it.
      auto compiled_under = [&](const nlohmann::json& what) -> const WhatIfOutcome& {
        auto& outcome = what_ifs[what.dump()];
        if (!outcome) {
          outcome = std::make_shared<WhatIfOutcome>();
          WhatIfResult r = ctx.what_if(what);
          outcome->ran = true;
          outcome->error = r.error;
          outcome->program = std::move(r.program);
        }
        return *outcome;
      };
      const std::string key = change.dump();
      const WhatIfOutcome& outcome = compiled_under(change);
      EvidenceLink e;
      e.stage = Stage::WhatIf;
      e.loc = op.loc;
      bool confirmed = false;
      if (outcome.program) {
        auto after = ptx_at(*outcome.program, source_file, line, mv->kind);
        int after_bits = widest_bits(after);
        if (!after.empty()) {
          e.ir_line = after.front()->line;
          e.quote = trim_ptx(after.front()->text);
        }
        confirmed = after_bits > actual;
        e.note = fmt::format("what-if {}: the {} on this line become {}-bit{} ({})", key, kind_plural(mv->kind),
                             after_bits, after_bits >= max_bits ? " (full width)" : "",
                             confirmed ? "confirmed: the named cause limits the width"
                                       : "not confirmed: the width did not change");
        confidence = confirmed ? 0.95 : 0.5;
      } else {
        e.note = fmt::format("what-if {} failed to compile: {}", key, outcome.error);
      }
      f.evidence.push_back(std::move(e));
      // The pointer's alignment alone changed nothing: the mask may limit the width too (a row
      // stride and a column bound, neither a multiple of 16). Both assumed together confirm that.
      if (outcome.program && !confirmed && !mv->mask_root_argument.empty() &&
          mv->mask_root_argument != mv->root_argument) {
        nlohmann::json joint = {
            {"assume_divisible", nlohmann::json::array({mv->root_argument, mv->mask_root_argument})}};
        const WhatIfOutcome& both = compiled_under(joint);
        if (both.program) {
          int joint_bits = widest_bits(ptx_at(*both.program, source_file, line, mv->kind));
          joint_confirmed = joint_bits > actual;
          EvidenceLink j;
          j.stage = Stage::WhatIf;
          j.loc = op.loc;
          j.note = fmt::format("what-if {}: the {} on this line become {}-bit ({})", joint.dump(),
                               kind_plural(mv->kind), joint_bits,
                               joint_confirmed ? fmt::format("confirmed: {} and the mask's bound {} limit the width "
                                                             "together", mv->root_argument, mv->mask_root_argument)
                                               : "not confirmed either");
          f.evidence.push_back(std::move(j));
          if (joint_confirmed) confidence = 0.95;
        }
      }
    }
    f.confidence = confidence;

    // Rewrite proposals derived from the culprit. Specializing an argument helps only when the
    // launch's value of it is a multiple of 16 (else the padding advice stands alone).
    const std::string root = mv->root_argument;
    auto propose_specialization = [&] {
      auto v = ctx.launch ? ctx.launch->int_arg(root) : std::nullopt;
      if (v && *v % 16 != 0) return;
      f.proposals.push_back({"add-multiple-of-hint",
                             fmt::format("let the JIT specialize {0} (not in do_not_specialize) when it is a multiple of "
                                         "16 (a `tl.multiple_of` hint on a kernel argument is dropped by Triton 3.6)",
                                         root),
                             {{"value", root}, {"multiple", 16}}});
    };
    if (mv->limited_by == "mask" && !root.empty()) {
      f.proposals.push_back({"unmasked-full-blocks",
                             fmt::format("run every full block without the mask (a runtime `if start + BLOCK <= "
                                         "{}`), so that only the last block is masked",
                                         root),
                             {{"bound", root}, {"line", line}}});
      f.proposals.push_back({kAdvice, fmt::format("pad {} (and the buffers) to a multiple of 16", root),
                             {{"arg", root}, {"multiple", 16}}});
      propose_specialization();
    } else if (mv->limited_by == "alignment" && !root.empty()) {
      const MlirType* rt = nullptr;
      for (const MlirFunction& fn : m.functions)
        for (const MlirArgument& arg : fn.arguments)
          if (arg.name == "%" + root) rt = &arg.type;
      if (rt && rt->is_pointer) {
        f.proposals.push_back({kAdvice,
                               fmt::format("pass a 16-byte aligned tensor as {} (.contiguous() copy or realigned "
                                           "allocation instead of an offset view)",
                                           root),
                               {{"arg", root}, {"bytes", 16}}});
      } else {
        f.proposals.push_back(l0::retiling_proposal(ctx.function, "flatten-contiguous-rows",
                                                    fmt::format("if the rows behind {} are contiguous, run the kernel "
                                                                "over the flat rows x columns elements (aligned) "
                                                                "instead of row by row",
                                                                root),
                                                    {{"stride", root}}));
        f.proposals.push_back({kAdvice,
                               fmt::format("pad the dimension behind {} to a multiple of {} elements", root,
                                           std::max(16 * 8 / std::max(bits, 1), 1)),
                               {{"arg", root}, {"multiple", std::max(16 * 8 / std::max(bits, 1), 1)}}});
      }
      propose_specialization();
    }
    // An argument the JIT cannot specialize (not a multiple of 16) may still be a multiple of 2..8:
    // rebuilt as (a // d) * d under a launch-time flag, AxisInfo sees that divisibility.
    {
      nlohmann::json rebuild = nlohmann::json::array();
      for (const std::string& a : {mv->root_argument, mv->mask_root_argument}) {
        if (a.empty() || std::find(rebuild.begin(), rebuild.end(), a) != rebuild.end()) continue;
        auto v = ctx.launch ? ctx.launch->int_arg(a) : std::nullopt;
        if (v && l0::unspecialized_divisor(*v) >= 2) rebuild.push_back(a);
      }
      if (!rebuild.empty())
        f.proposals.push_back({"divisibility-by-construction",
                               fmt::format("rebuild {} as (a // d) * d under a constexpr flag the launch computes "
                                           "(the value is a multiple of d but not of 16, which the JIT would mark)",
                                           rebuild.size() == 1 ? rebuild[0].get<std::string>() : "the culprits"),
                               {{"args", rebuild}}});
    }
    if (joint_confirmed)
      f.proposals.push_back({"unmasked-full-blocks",
                             fmt::format("run every full block without the mask (a runtime `if start + BLOCK <= {}`), "
                                         "so that only the last block is masked",
                                         mv->mask_root_argument),
                             {{"bound", mv->mask_root_argument}, {"line", line}}});
    if (mv->limited_by == "contiguity" && culprit) {
      if (culprit->name == "arith.remsi" || culprit->name == "arith.remui") {
        // l0-missing-alignment-hints proposes add-contiguity-hint for the same `%` with the G it proved.
        f.proposals.push_back({kAdvice,
                               "wrap the index in tl.max_contiguous(tl.multiple_of(idx, BLOCK), BLOCK) if the wrap "
                               "cannot happen inside a block",
                               {{"line", culprit->loc.line}, {"contiguous", mv->max_vec}}});
      } else if (culprit->name == "arith.muli" && !root.empty()) {
        f.proposals.push_back({kAdvice,
                               fmt::format("drop the multiply by {} on the contiguous dimension (or make it a "
                                           "tl.constexpr 1)",
                                           root),
                               {{"arg", root}}});
      }
    } else if (mv->limited_by == "layout" && change.contains("num_warps")) {
      f.proposals.push_back({"reduce-num-warps",
                             fmt::format("launch with num_warps={} so each thread owns {} contiguous elements",
                                         change["num_warps"].get<int>(), mv->max_vec),
                             {{"num_warps", change["num_warps"]}}});
    }
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_vectorization_lost_rule() { return std::make_unique<VectorizationLostRule>(); }

}  // namespace tdx
