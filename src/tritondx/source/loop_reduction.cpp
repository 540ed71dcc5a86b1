#include "tritondx/source/loop_reduction.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "tritondx/source/max_argmax.h"

namespace tdx::l0 {
namespace {

std::optional<LoopReductionKind> reduction_kind(const PyNode& node) {
  if (node.type != "Call") return std::nullopt;
  std::string name = normalize_triton_name(call_name(node));
  if (name == "tl.sum") return LoopReductionKind::Sum;
  if (name == "tl.max") return LoopReductionKind::Max;
  if (name == "tl.min") return LoopReductionKind::Min;
  return std::nullopt;
}

// An accumulator update (accumulator_update.h) whose R is a reduction of its own kind:
// `acc += tl.sum(x)`, `m = tl.maximum(m, tl.max(x))`, with a plain two-argument combine.
std::optional<AccumulatorUpdate> reducing_update(const PyNode& stmt) {
  auto u = accumulator_update(stmt);
  if (!u || reduction_kind(*u->value) != u->kind) return std::nullopt;
  if (u->combine && (u->combine->children_in("args").size() != 2 || !u->combine->children_in("keywords").empty()))
    return std::nullopt;
  return u;
}

// The first break/continue leaving `loop` itself, or return inside it (nullptr if none).
const PyNode* early_exit(const PyNode& loop) {
  const PyNode* found = nullptr;
  for (const PyNode* s : loop.children_in("body"))
    PyModule::walk(*s, [&](const PyNode& n) {
      if (found) return;
      if (n.type == "Return" || ((n.type == "Break" || n.type == "Continue") && PyModule::enclosing_loop(n) == &loop))
        found = &n;
    });
  return found;
}

void find_blocker(const KernelView& view, LoopReduction& r) {
  auto block = [&](int line, std::string why) {
    if (r.blocker.empty()) {
      r.blocker = std::move(why);
      r.blocker_line = line;
    }
  };
  for (const PyNode* use : view.uses(r.acc))
    if (use != r.combine_read && PyModule::inside(*use, *r.loop))
      block(use->line, fmt::format("{} is read on line {} inside the loop of line {}: its running value is needed "
                                   "every iteration",
                                   r.acc, use->line, r.loop->line));
  for (const auto& d : view.definitions(r.acc))
    if (d.stmt != r.update && PyModule::inside(*d.stmt, *r.loop))
      block(d.stmt->line, fmt::format("{} is also assigned on line {} inside the loop of line {}", r.acc, d.stmt->line,
                                      r.loop->line));
  if (const PyNode* exit = early_exit(*r.loop))
    block(exit->line, fmt::format("the loop of line {} exits early ({} on line {})", r.loop->line, exit->type, exit->line));
  if (!r.loop->children_in("orelse").empty())
    block(r.loop->line, fmt::format("the loop of line {} has an else branch", r.loop->line));
}

}  // namespace

std::vector<LoopReduction> loop_reductions(const KernelView& view) {
  std::vector<LoopReduction> out;
  PyModule::walk(view.function(), [&](const PyNode& loop) {
    if (loop.type != "For" && loop.type != "While") return;
    for (const PyNode* stmt : loop.children_in("body")) {
      auto form = reducing_update(*stmt);
      if (!form) continue;
      const PyNode* reduction = form->value;
      // tl.max(x, axis, return_indices) / a combine function: not a plain value reduction.
      if (form->kind != LoopReductionKind::Sum && (argument(*reduction, 2) || keyword(*reduction, "return_indices")))
        continue;
      const PyNode* operand = reduced_operand(*reduction);
      if (!operand) continue;
      if (auto shape = view.shape(*operand); shape && shape->empty()) continue;  // a scalar: nothing to reduce
      // Loop-carried: acc has a value before the loop.
      const Definition* init = view.definition_at(form->acc, loop.line, loop.col);
      if (!init || init->stmt->type == "For" || PyModule::inside(*init->stmt, loop)) continue;
      LoopReduction r;
      r.loop = &loop;
      r.update = stmt;
      r.reduction = reduction;
      r.operand = operand;
      r.combine_read = form->combine_read;
      r.init = init;
      r.acc = form->acc;
      r.kind = form->kind;
      find_blocker(view, r);
      out.push_back(std::move(r));
    }
  });
  std::stable_sort(out.begin(), out.end(),
                   [](const LoopReduction& a, const LoopReduction& b) { return a.update->line < b.update->line; });
  return out;
}

}  // namespace tdx::l0
