#include "tritondx/rewrite/recipes/accumulation.h"

#include <algorithm>

#include "tritondx/rewrite/recipes/recipe_util.h"

namespace tdx::accumulation {

std::optional<Accumulation> of(const PyNode& stmt) {
  Accumulation a{&stmt, {}, {}, nullptr};
  if (stmt.type == "AugAssign" && stmt.fields.value("op", "") == "Add") {
    const PyNode* t = stmt.child("target");
    if (!t || t->type != "Name") return std::nullopt;
    a.acc = t->str_field("id"), a.kind = "sum", a.value = stmt.child("value");
  } else if (stmt.type == "Assign") {
    auto targets = stmt.children_in("targets");
    const PyNode* v = stmt.child("value");
    if (targets.size() != 1 || targets[0]->type != "Name" || !v) return std::nullopt;
    a.acc = targets[0]->str_field("id");
    auto is_acc = [&](const PyNode* n) { return n && n->type == "Name" && n->str_field("id") == a.acc; };
    if (v->type == "BinOp" && v->fields.value("op", "") == "Add") {
      a.kind = "sum";
      if (is_acc(v->child("left"))) a.value = v->child("right");
      else if (is_acc(v->child("right"))) a.value = v->child("left");
    } else if (v->type == "Call") {
      std::string name = normalize_triton_name(call_name(*v));
      if (name != "tl.maximum" && name != "tl.minimum") return std::nullopt;
      a.kind = name == "tl.maximum" ? "max" : "min";
      if (is_acc(argument(*v, 0))) a.value = argument(*v, 1);
      else if (is_acc(argument(*v, 1))) a.value = argument(*v, 0);
    }
  }
  if (!a.value || PyModule::names_read(*a.value).contains(a.acc)) return std::nullopt;
  return a;
}

bool is_block(const PyNode& init) {
  if (init.type != "Call") return false;
  std::string name = normalize_triton_name(call_name(init));
  return name == "tl.zeros" || name == "tl.full";
}

bool is_identity(const KernelContext& ctx, const PyNode& init, std::string_view kind) {
  if (is_block(init)) {
    bool zeros = normalize_triton_name(call_name(init)) == "tl.zeros";
    const PyNode* dtype = keyword(init, "dtype") ? keyword(init, "dtype") : argument(init, zeros ? 1 : 2);
    // tl.zeros defaults to fp32; tl.full has no default.
    if (dtype ? normalize_triton_name(dotted_name(*dtype)) != "tl.float32" : !zeros) return false;
    if (zeros) return kind == "sum";
    const PyNode* fill = argument(init, 1) ? argument(init, 1) : keyword(init, "value");
    return fill && !is_block(*fill) && is_identity(ctx, *fill, kind);
  }
  std::string t = recipe_util::squash(recipe_util::text(ctx, init));
  std::replace(t.begin(), t.end(), '\'', '"');
  if (kind == "max") return t == "-float(\"inf\")" || t == "float(\"-inf\")" || t == "-math.inf";
  if (kind == "min") return t == "float(\"inf\")" || t == "math.inf";
  if (auto v = number_constant(init)) return *v == 0.0;
  return false;
}

}  // namespace tdx::accumulation
