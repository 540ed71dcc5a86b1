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

bool is_name(const PyNode* node, std::string_view id) {
  return node && node->type == "Name" && node->str_field("id") == id;
}

// The shape of the update statement, before any check of the loop around it.
struct UpdateForm {
  std::string acc;
  const PyNode* reduction = nullptr;
  const PyNode* combine_read = nullptr;
  LoopReductionKind kind = LoopReductionKind::Sum;
};

std::optional<UpdateForm> update_form(const PyNode& stmt) {
  if (stmt.type == "AugAssign") {  // acc += tl.sum(x, ...)
    const PyNode* target = stmt.child("target");
    const PyNode* value = stmt.child("value");
    if (stmt.fields.value("op", "") != "Add" || !target || target->type != "Name" || !value) return std::nullopt;
    if (reduction_kind(*value) != LoopReductionKind::Sum) return std::nullopt;
    return UpdateForm{target->str_field("id"), value, nullptr, LoopReductionKind::Sum};
  }
  if (stmt.type != "Assign") return std::nullopt;
  auto targets = stmt.children_in("targets");
  const PyNode* value = stmt.child("value");
  if (targets.size() != 1 || targets[0]->type != "Name" || !value) return std::nullopt;
  const std::string acc = targets[0]->str_field("id");
  if (value->type == "BinOp" && value->fields.value("op", "") == "Add") {  // acc = acc + tl.sum(x) (either order)
    const PyNode* l = value->child("left");
    const PyNode* r = value->child("right");
    if (is_name(l, acc) && r && reduction_kind(*r) == LoopReductionKind::Sum)
      return UpdateForm{acc, r, l, LoopReductionKind::Sum};
    if (is_name(r, acc) && l && reduction_kind(*l) == LoopReductionKind::Sum)
      return UpdateForm{acc, l, r, LoopReductionKind::Sum};
    return std::nullopt;
  }
  if (value->type != "Call") return std::nullopt;  // m = tl.maximum(m, tl.max(x)) (either order)
  std::string combine = normalize_triton_name(call_name(*value));
  std::optional<LoopReductionKind> want;
  if (combine == "tl.maximum") want = LoopReductionKind::Max;
  if (combine == "tl.minimum") want = LoopReductionKind::Min;
  auto args = value->children_in("args");
  if (!want || args.size() != 2 || !value->children_in("keywords").empty()) return std::nullopt;
  for (int i = 0; i < 2; ++i)
    if (is_name(args[i], acc) && reduction_kind(*args[1 - i]) == want) return UpdateForm{acc, args[1 - i], args[i], *want};
  return std::nullopt;
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

std::string_view loop_reduction_name(LoopReductionKind kind) {
  switch (kind) {
    case LoopReductionKind::Sum: return "sum";
    case LoopReductionKind::Max: return "max";
    case LoopReductionKind::Min: return "min";
  }
  return "sum";
}

std::vector<LoopReduction> loop_reductions(const KernelView& view) {
  std::vector<LoopReduction> out;
  PyModule::walk(view.function(), [&](const PyNode& loop) {
    if (loop.type != "For" && loop.type != "While") return;
    for (const PyNode* stmt : loop.children_in("body")) {
      auto form = update_form(*stmt);
      if (!form) continue;
      const PyNode* reduction = form->reduction;
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
