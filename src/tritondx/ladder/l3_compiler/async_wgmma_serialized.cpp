// l3-async-wgmma-serialized: a wgmma in a loop is waited for right after it is issued
// (`ttng.warp_group_dot_wait {pendings = 0}`), so the tensor cores never overlap with the next
// iteration's work; the cause is the dotCanBeProperlyAsync rule of WGMMAPipeline.cpp that fails.
#include <set>

#include <fmt/format.h>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/ladder/l3_compiler/l3_evidence.h"
#include "tritondx/ladder/l3_compiler/rules.h"

namespace tdx {
namespace {

using namespace l3;

// The op that produced `value`, looking through view ops the pipeliner allows between a
// shared buffer and a wgmma operand (convert_layout, memdesc_trans, memdesc_reshape).
const MlirOp* buffer_source(const MlirModule& m, const std::string& value) {
  const MlirOp* def = m.defining_op(value);
  for (int guard = 0; def && guard < 16; ++guard) {
    if (def->name != "ttg.convert_layout" && def->name != "ttg.memdesc_trans" && def->name != "ttg.memdesc_reshape")
      break;
    if (def->operands.empty()) break;
    def = m.defining_op(def->operands[0]);
  }
  return def;
}

// The results of a warp_group_dot_wait that stand for its operands: operand i -> "%w#i".
std::string wait_result(const MlirOp& wait, size_t i) {
  if (wait.results.empty()) return {};
  return wait.result_count > 1 ? fmt::format("{}#{}", wait.results[0], i) : wait.results[0];
}

// Users of exactly `value` (with its #n suffix) among ops.
std::vector<int> exact_users(const MlirModule& m, const ValueUses& uses, const std::string& value) {
  std::vector<int> out;
  for (int u : uses.users(value))
    for (const auto& o : m.ops[static_cast<size_t>(u)].operands)
      if (o == value) {
        out.push_back(u);
        break;
      }
  return out;
}

struct Cause {
  std::string text;
  const MlirOp* op = nullptr;  // the op that breaks the rule (quoted)
  std::string note;
  bool loads_not_pipelined = false;
};

class AsyncWgmmaSerializedRule final : public Rule {
 public:
  std::string_view id() const override { return "l3-async-wgmma-serialized"; }
  Level level() const override { return Level::L3; }
  std::string_view description() const override {
    return "A wgmma (`ttng.warp_group_dot`) inside a loop is followed by `ttng.warp_group_dot_wait {pendings = 0}` "
           "before the next iteration, so the asynchronous tensor-core instruction is waited for immediately "
           "(`wgmma.wait_group 0`) and never overlaps the next loads or MMAs. TritonGPUPipeline keeps a wgmma in "
           "flight (pendings = 1) only when dotCanBeProperlyAsync holds: its shared-memory operands are "
           "multi-buffered (the loads were pipelined), a register operand A is not redefined in the loop, the "
           "dot's result is used in the loop only by the yield, and the previous iteration's accumulator is read "
           "only by other wgmmas as their accumulator. The rule names the rule that fails and quotes the op "
           "(e.g. `acc = acc * alpha` reading the accumulator).";
  }
  RuleNeeds needs() const override { return {.program = true, .pass_dumps = true, .what_if = true}; }
  nlohmann::json options() const override { return {{"what_if", what_if_}}; }
  void configure(const nlohmann::json& o) override { what_if_ = o.value("what_if", what_if_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  bool what_if_ = true;
};

std::vector<Cause> find_causes(const MlirModule& m, const ValueUses& uses, const MlirOp& dot, const MlirOp* wait,
                               const ForLoop& loop) {
  std::vector<Cause> out;
  // Rule 1: operands in shared memory must be multi-buffered; a register operand A must be
  // defined outside the loop (or converted from another wgmma's result).
  for (size_t i = 0; i < 2 && i < dot.operands.size(); ++i) {
    const MlirOp* src = buffer_source(m, dot.operands[i]);
    if (!src) continue;  // a block argument: loop-carried buffer
    bool inside = is_nested_in(m, src->index, loop.op);
    if (!inside) continue;
    if (src->name == "ttg.memdesc_index" || src->name == "ttg.memdesc_subview") continue;
    if (src->name == "ttg.local_alloc") {
      Cause c;
      c.text = fmt::format("operand {} is a single shared-memory buffer written in every iteration (ttg.local_alloc "
                           "of a synchronous load), not a multi-buffered slot: its loads were not pipelined",
                           i == 0 ? "A" : "B");
      c.op = src;
      c.note = "a single-buffered shared operand allocated inside the loop";
      c.loads_not_pipelined = true;
      out.push_back(std::move(c));
    } else if (i == 0) {
      const MlirOp* def = m.defining_op(dot.operands[0]);
      bool from_mma = def && def->name == "ttg.convert_layout";
      if (!from_mma) {
        Cause c;
        c.text = "register operand A is recomputed inside the loop, and the wgmma reads those registers "
                 "asynchronously";
        c.op = src;
        c.note = "the register operand A is defined inside the loop";
        out.push_back(std::move(c));
      }
    }
  }
  // Rule 2: the dot's result may be used in the loop only by the yield (through the wait).
  std::vector<std::string> results;
  if (!dot.results.empty()) results.push_back(dot.results[0]);
  if (wait)
    for (size_t i = 0; i < wait->operands.size(); ++i)
      if (!dot.results.empty() && value_base(wait->operands[i]) == dot.results[0]) results.push_back(wait_result(*wait, i));
  int yield_index = -1;
  for (const auto& r : results)
    for (int u : exact_users(m, uses, r)) {
      const MlirOp& user = m.ops[static_cast<size_t>(u)];
      if (wait && u == wait->index) continue;
      if (u == loop.yield) {
        const auto& ops = user.operands;
        for (size_t k = 0; k < ops.size(); ++k)
          if (ops[k] == r) yield_index = static_cast<int>(k);
        continue;
      }
      if (user.parent == loop.op) {
        Cause c;
        c.text = fmt::format("the dot's result is used inside the loop by `{}`, not only carried to the next "
                             "iteration",
                             user.name);
        c.op = &user;
        c.note = "reads the wgmma result in the same iteration";
        out.push_back(std::move(c));
      }
    }
  // Rule 3: the accumulator from the previous iteration may be read only by wgmmas as `c`.
  if (yield_index >= 0 && yield_index < static_cast<int>(loop.iter_args.size())) {
    const std::string& acc = loop.iter_args[static_cast<size_t>(yield_index)];
    for (int u : exact_users(m, uses, acc)) {
      const MlirOp& user = m.ops[static_cast<size_t>(u)];
      bool as_c = user.name == "ttng.warp_group_dot" && user.operands.size() > 2 && user.operands[2] == acc;
      if (as_c) continue;
      Cause c;
      c.text = fmt::format("the accumulator carried from the previous iteration is read by `{}` before the "
                           "wgmma (e.g. `acc = acc * alpha`), so the previous wgmma must have completed",
                           user.name);
      c.op = &user;
      c.note = "reads the previous iteration's accumulator";
      out.push_back(std::move(c));
    }
  }
  return out;
}

void AsyncWgmmaSerializedRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.program || !ctx.program->ttgir || !ctx.task) return;
  const MlirModule& m = *ctx.program->ttgir;
  ValueUses uses(m);
  std::set<int> reported;
  for (const auto& dot : m.ops) {
    if (dot.name != "ttng.warp_group_dot") continue;
    int for_op = enclosing_for(m, dot.index);
    if (for_op < 0 || m.ops[static_cast<size_t>(for_op)].parent < 0) continue;
    auto loop = for_loop(m, for_op);
    if (!loop || dot.parent != for_op) continue;
    // The wait that consumes this dot's result in the same iteration.
    const MlirOp* wait = nullptr;
    for (int k : loop_body(m, for_op)) {
      const MlirOp& w = m.ops[static_cast<size_t>(k)];
      if (k <= dot.index || w.name != "ttng.warp_group_dot_wait") continue;
      for (const auto& o : w.operands)
        if (!dot.results.empty() && value_base(o) == dot.results[0]) wait = &w;
      if (wait) break;
    }
    bool is_async = dot.attribute("isAsync") && dot.attribute("isAsync")->value == "true";
    auto pendings = wait ? wait->int_attribute("pendings") : std::nullopt;
    bool serialized = (wait && pendings && *pendings == 0) || (!wait && !is_async);
    if (!serialized) continue;
    int line = task_line(ctx, dot);
    if (line == 0 || !reported.insert(line).second) continue;

    Finding f;
    f.loc = SourceLoc{ctx.task->path, line, 0};
    f.symptom = fmt::format("the wgmma at line {} is waited for right after it is issued (pendings = 0): tensor cores "
                            "do not overlap the loop's next loads and MMAs",
                            line);
    f.evidence.push_back(ctx.source_evidence(line, "the dot"));
    f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, dot, "final TTGIR: the wgmma in the loop"));
    if (wait)
      f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, *wait, "waits for zero pending wgmmas in the same iteration"));
    auto causes = find_causes(m, uses, dot, wait, *loop);
    bool loads = false;
    for (const auto& c : causes) {
      if (c.op) f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, *c.op, c.note));
      loads |= c.loads_not_pipelined;
    }
    if (causes.empty()) {
      f.cause = "TritonGPUPipeline's dotCanBeProperlyAsync rejected the dot for a reason not visible in the final "
                "TTGIR.";
      f.confidence = 0.4;
    } else {
      std::string text;
      for (const auto& c : causes) text += (text.empty() ? "" : "; ") + c.text;
      f.cause = "TritonGPUPipeline keeps a wgmma in flight across iterations only when dotCanBeProperlyAsync holds "
                "(WGMMAPipeline.cpp); here " +
                text + ".";
      f.confidence = 0.85;
    }
    if (loads && what_if_ && ctx.what_if && num_stages(ctx) <= 1) {
      nlohmann::json change = {{"num_stages", 3}};
      WhatIfResult r = ctx.what_if(change);
      if (r.program && r.program->ttgir) {
        for (const auto& w : r.program->ttgir->ops)
          if (w.name == "ttng.warp_group_dot_wait" && source_line(w, ctx.task->path) == line &&
              w.int_attribute("pendings").value_or(0) > 0) {
            f.evidence.push_back(
                what_if_evidence(w, "what-if num_stages=3: the loads are pipelined and the wgmma stays in flight"));
            f.confidence = 0.95;
            break;
          }
      } else {
        f.evidence.push_back(what_if_note(change, "what-if compile failed: " + r.error));
      }
    }
    for (const auto& c : causes) {
      if (c.loads_not_pipelined)
        f.proposals.push_back({"pipeline-loop", "pipeline the operand loads (num_stages = 3; loads at least 4 bytes "
                               "wide) so the wgmma reads multi-buffered shared memory",
                               {{"line", line}, {"num_stages", 3}}});
      else
        f.proposals.push_back({kAdvice, "keep only `acc = tl.dot(a, b, acc)` in the loop: move scaling of "
                               "the accumulator out of the loop or under an `if`",
                               {{"line", line}, {"op_line", c.op ? task_line(ctx, *c.op) : 0}}});
    }
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_async_wgmma_serialized_rule() { return std::make_unique<AsyncWgmmaSerializedRule>(); }

}  // namespace tdx
