#include "tritondx/source/accumulator_update.h"

namespace tdx::l0 {
namespace {

bool is_name(const PyNode* node, std::string_view id) {
  return node && node->type == "Name" && node->str_field("id") == id;
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

std::optional<AccumulatorUpdate> accumulator_update(const PyNode& stmt) {
  AccumulatorUpdate u;
  u.stmt = &stmt;
  if (stmt.type == "AugAssign") {
    const PyNode* target = stmt.child("target");
    if (stmt.fields.value("op", "") != "Add" || !target || target->type != "Name") return std::nullopt;
    u.acc = target->str_field("id");
    u.value = stmt.child("value");
    return u.value ? std::optional(u) : std::nullopt;
  }
  if (stmt.type != "Assign") return std::nullopt;
  auto targets = stmt.children_in("targets");
  const PyNode* v = stmt.child("value");
  if (targets.size() != 1 || targets[0]->type != "Name" || !v) return std::nullopt;
  u.acc = targets[0]->str_field("id");
  const PyNode* first = nullptr;
  const PyNode* second = nullptr;
  if (v->type == "BinOp" && v->fields.value("op", "") == "Add") {
    first = v->child("left"), second = v->child("right");
  } else if (v->type == "Call") {
    std::string name = normalize_triton_name(call_name(*v));
    if (name != "tl.maximum" && name != "tl.minimum") return std::nullopt;
    u.kind = name == "tl.maximum" ? LoopReductionKind::Max : LoopReductionKind::Min;
    u.combine = v;
    first = argument(*v, 0), second = argument(*v, 1);
  } else {
    return std::nullopt;
  }
  if (is_name(first, u.acc)) u.combine_read = first, u.value = second;
  else if (is_name(second, u.acc)) u.combine_read = second, u.value = first;
  if (!u.value) return std::nullopt;
  return u;
}

}  // namespace tdx::l0
