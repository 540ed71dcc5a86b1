#include "tritondx/rewrite/recipes/dot_operand.h"

#include <fmt/format.h>

#include <vector>

#include "tritondx/core/check.h"
#include "tritondx/rewrite/recipes/recipe_util.h"

namespace tdx::dot_operand {

using l0::KernelView;
using recipe_util::squash;

namespace {

// The kernel's top-level `name = value`, when nothing else defines the name but at most one
// `name += ...` directly in `advanced_in` (a pointer tile's advance in the K loop); else nullptr.
const PyNode* top_level_definition(const KernelView& view, const std::string& name,
                                   const PyNode* advanced_in = nullptr) {
  const PyNode* assign = nullptr;
  bool advanced = false;
  for (const auto& d : view.definitions(name)) {
    if (d.stmt->type == "Assign" && d.stmt->parent == &view.function() && !assign) assign = d.stmt;
    else if (advanced_in && d.stmt->type == "AugAssign" && d.stmt->parent == advanced_in && !advanced) advanced = true;
    else return nullptr;
  }
  return assign;
}

Expected<IndexVector> index_vector(const KernelView& view, const std::string& name, int line) {
  const KernelContext& ctx = view.ctx();
  const PyNode* def = top_level_definition(view, name);
  if (!def || !def->child("value"))
    return fail(Stage::Rewrite, fmt::format("{} is not assigned once at the kernel's top level", name), line);
  std::string start, wrap;
  const PyNode* value = def->child("value");
  if (value->type == "BinOp" && value->str_field("op") == "Mod" && value->child("right") &&
      value->child("right")->type == "Name" && view.is_param(value->child("right")->str_field("id")) &&
      value->child("left")) {
    wrap = value->child("right")->str_field("id");
    value = value->child("left");
  }
  const PyNode* arange = nullptr;
  int others = 0;
  for (const PyNode* t : recipe_util::sum_terms(*value)) {
    if (t->type == "Call" && normalize_triton_name(call_name(*t)) == "tl.arange" && !arange) {
      arange = t;
    } else {
      start = recipe_util::text(ctx, *t);
      ++others;
    }
  }
  if (!arange || others > 1) return fail(Stage::Rewrite, fmt::format("{} is not `start + tl.arange(0, BLOCK)`", name), line);
  const PyNode* lo = argument(*arange, 0);
  const PyNode* hi = argument(*arange, 1);
  if (!lo || !hi || int_constant(*lo) != 0)
    return fail(Stage::Rewrite, fmt::format("{}'s tl.arange does not start at 0", name), line);
  return IndexVector{others ? start : "0", recipe_util::text(ctx, *hi), wrap};
}

// The axis a subscript `x[:, None]` (0) or `x[None, :]` (1) expands, or -1.
int expanded_axis(const PyNode& sub) {
  const PyNode* slice = sub.child("slice");
  if (!slice || slice->type != "Tuple") return -1;
  auto elts = slice->children_in("elts");
  if (elts.size() != 2) return -1;
  // The bridge omits None-valued fields: Constant(None) has no "value".
  auto is_none = [](const PyNode* n) {
    return n->type == "Constant" && n->fields.value("value", nlohmann::json()).is_null();
  };
  if (elts[0]->type == "Slice" && is_none(elts[1])) return 0;
  if (is_none(elts[0]) && elts[1]->type == "Slice") return 1;
  return -1;
}

}  // namespace

// `ptrs = base + i0[:, None] * s0 + i1[None, :] * s1` (terms and factors in any order).
Expected<void> parse_pointer_tile(const KernelContext& ctx, const KernelView& view, const std::string& ptrs,
                                  const PyNode& loop, Operand& op, int line) {
  auto refuse = [&](std::string why) -> Expected<void> { return fail(Stage::Rewrite, std::move(why), line); };
  const PyNode* def = top_level_definition(view, ptrs, &loop);
  if (!def || !def->child("value"))
    return refuse(fmt::format("{} is not assigned once at the kernel's top level and advanced at most once in the "
                              "K loop", ptrs));
  for (const PyNode* t : recipe_util::sum_terms(*def->child("value"))) {
    if (t->type == "Name" && view.is_pointer_param(t->str_field("id")) && op.base.empty()) {
      op.base = t->str_field("id");
      continue;
    }
    if (t->type != "BinOp" || t->str_field("op") != "Mult" || !t->child("left") || !t->child("right"))
      return refuse(fmt::format("{} has a term `{}` that is not `index[..] * stride`", ptrs, recipe_util::text(ctx, *t)));
    const PyNode* sub = t->child("left")->type == "Subscript" ? t->child("left") : t->child("right");
    const PyNode* stride = sub == t->child("left") ? t->child("right") : t->child("left");
    int axis = sub->type == "Subscript" ? expanded_axis(*sub) : -1;
    if (axis < 0 || !sub->child("value") || sub->child("value")->type != "Name" || stride->type != "Name" ||
        !op.index[axis].empty())
      return refuse(fmt::format("{} has a term `{}` that is not `index[:, None] * stride` or `index[None, :] * stride`",
                                ptrs, recipe_util::text(ctx, *t)));
    op.index[axis] = sub->child("value")->str_field("id");
    op.index_text[axis] = recipe_util::text(ctx, *sub);
    op.stride[axis] = stride->str_field("id");
  }
  if (op.base.empty() || op.index[0].empty() || op.index[1].empty())
    return refuse(fmt::format("{} is not a pointer parameter plus a row and a column term", ptrs));
  for (int d = 0; d < 2; ++d) {
    if (!view.is_param(op.stride[d])) return refuse(fmt::format("the stride {} is not a kernel parameter", op.stride[d]));
    op.vec[d] = TDX_TRY(index_vector(view, op.index[d], line));
  }
  return {};
}

// The mask `(i0[:, None] < E0) & (i1[None, :] + k < E1)`, the K term on the advanced dimension
// (also written `i1[None, :] < E1 - k`). A dimension whose index wraps (`% E`) may go unmasked: its
// extent is E, and TMA's zero fill past E reaches only the accumulator's rows or columns past E,
// which the wrapped index kept in bounds but which no store may read (checked by the caller).
Expected<void> parse_mask(const KernelContext& ctx, const KernelView& view, const PyNode& mask, const std::string& k_pos,
                          Operand& op, int line) {
  auto refuse = [&](std::string why) -> Expected<void> { return fail(Stage::Rewrite, std::move(why), line); };
  std::vector<const PyNode*> terms;
  if (mask.type == "BinOp" && mask.str_field("op") == "BitAnd" && mask.child("left") && mask.child("right"))
    terms = {mask.child("left"), mask.child("right")};
  else if (mask.type == "Compare")
    terms = {&mask};
  else
    return refuse(fmt::format("the mask of {} is not `rows & columns`", op.target));
  for (const PyNode* cmp : terms) {
    auto right = cmp->children_in("comparators");
    if (cmp->type != "Compare" || right.size() != 1 || !cmp->child("left") ||
        cmp->fields.value("ops", nlohmann::json::array()) != nlohmann::json::array({"Lt"}))
      return refuse(fmt::format("the mask of {} has a term that is not `index < extent`", op.target));
    std::string left = squash(recipe_util::text(ctx, *cmp->child("left")));
    // `extent` or, on the K dimension, `extent - k`.
    std::string extent, remainder_of;
    if (right[0]->type == "Name") extent = right[0]->str_field("id");
    else if (right[0]->type == "BinOp" && right[0]->str_field("op") == "Sub" && right[0]->child("left") &&
             right[0]->child("left")->type == "Name" && right[0]->child("right") &&
             squash(recipe_util::text(ctx, *right[0]->child("right"))) == squash(k_pos))
      remainder_of = right[0]->child("left")->str_field("id");
    else
      return refuse(fmt::format("the mask of {} has a term that is not `index < extent`", op.target));
    bool matched = false;
    for (int d = 0; d < 2 && !matched; ++d) {
      std::string index = squash(op.index_text[d]);
      bool ok = d != op.k_dim ? left == index && !extent.empty()
                : !remainder_of.empty() ? left == index
                                        : left == squash(index + "+" + k_pos) || left == squash(k_pos + "+" + index);
      if (ok && op.extent[d].empty()) {
        op.extent[d] = extent.empty() ? remainder_of : extent;
        matched = true;
      }
    }
    if (!matched) return refuse(fmt::format("the mask of {} compares `{}`, not one of its indices", op.target, left));
  }
  for (int d = 0; d < 2; ++d) {
    if (op.extent[d].empty() && d != op.k_dim && !op.vec[d].wrap.empty()) op.extent[d] = op.vec[d].wrap;
    if (op.extent[d].empty()) return refuse(fmt::format("the mask of {} does not bound dimension {}", op.target, d));
    if (!view.is_param(op.extent[d])) return refuse(fmt::format("the extent {} is not a kernel parameter", op.extent[d]));
  }
  if (op.k_dim >= 0 && !op.vec[op.k_dim].wrap.empty())
    return refuse(fmt::format("the K index of {} wraps (% {})", op.target, op.vec[op.k_dim].wrap));
  // Zero fill past a wrapped extent differs from the wrapped rows: only the pointer tile may read the index.
  for (int d = 0; d < 2; ++d)
    if (!op.vec[d].wrap.empty() && view.uses(op.index[d]).size() != 1)
      return refuse(fmt::format("{} wraps (% {}) and is read outside {}'s pointer tile", op.index[d], op.vec[d].wrap,
                                op.target));
  return {};
}

const PyNode* flag_split_load(const KernelView& view, const PyNode& branch, const std::string& target) {
  const PyNode* test = branch.child("test");
  if (!test || test->type != "Name" || !view.is_param(test->str_field("id"))) return nullptr;
  const KernelParam* flag = view.param_info(test->str_field("id"));
  if (!flag || !flag->is_constexpr) return nullptr;
  const PyNode* loads[2] = {nullptr, nullptr};
  const char* arms[2] = {"body", "orelse"};
  for (int a = 0; a < 2; ++a) {
    auto stmts = branch.children_in(arms[a]);
    if (stmts.empty()) return nullptr;
    for (const PyNode* s : stmts) {
      const PyNode* v = s->type == "Assign" ? s->child("value") : nullptr;
      if (!v || v->type != "Call" || normalize_triton_name(call_name(*v)) != "tl.load") return nullptr;
      if (recipe_util::assigned_name(*s) != target) continue;
      if (loads[a]) return nullptr;
      loads[a] = v;
    }
  }
  if (!loads[0] || !loads[1]) return nullptr;
  const PyNode* p0 = KernelView::pointer_arg(*loads[0]);
  const PyNode* p1 = KernelView::pointer_arg(*loads[1]);
  if (!p0 || !p1 || p0->type != "Name" || p1->type != "Name" || p0->str_field("id") != p1->str_field("id")) return nullptr;
  return loads[1];
}


}  // namespace tdx::dot_operand
