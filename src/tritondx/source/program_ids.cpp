#include "tritondx/source/program_ids.h"

namespace tdx::l0 {

bool is_program_id_helper(const std::string& callee) {
  return (callee == "program_id" || callee.ends_with(".program_id")) && normalize_triton_name(callee) != "tl.program_id";
}

ProgramIdRead program_id_read(const KernelView& view, const PyNode& expr) {
  const PyNode* n = &expr;
  if (n->type == "Name") {
    const Definition* d = view.definition(*n);
    if (!d || !d->value || !d->stmt || d->stmt->type != "Assign") return {};
    n = d->value;
  }
  bool widened = false;
  // `<read>.to(tl.int64)`
  if (n->type == "Call")
    if (const PyNode* f = n->child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to" && f->child("value")) {
      n = f->child("value");
      widened = true;
    }
  if (n->type != "Call") return {};
  const std::string callee = call_name(*n);
  const bool triton_own = normalize_triton_name(callee) == "tl.program_id";
  if (!triton_own && !is_program_id_helper(callee)) return {};
  const PyNode* axis = argument(*n, 0) ? argument(*n, 0) : keyword(*n, "axis");
  auto v = axis ? int_constant(*axis) : std::nullopt;
  if (!v) return {};
  return {static_cast<int>(*v), widened || !triton_own};
}

}  // namespace tdx::l0
