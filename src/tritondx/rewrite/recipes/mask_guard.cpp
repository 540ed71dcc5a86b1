#include "tritondx/rewrite/recipes/mask_guard.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tritondx/rewrite/recipes/recipe_util.h"

namespace tdx::mask_guard {

using l0::KernelView;

Expected<MaskedStatement> masked_statement(const KernelView& view, int line) {
  const KernelContext& ctx = view.ctx();
  MaskedStatement ms;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"}))
    if (op->line == line && KernelView::mask_arg(*op)) ms.memops.push_back(op);
  if (ms.memops.empty()) return fail(Stage::Rewrite, fmt::format("no masked tl.load/tl.store on line {}", line), line);
  const PyNode* stmt = ms.memops.front();
  while (stmt && stmt->field != "body" && stmt->field != "orelse") stmt = stmt->parent;
  if (!stmt || stmt->type == "For" || stmt->type == "While" || stmt->type == "If" || stmt->type == "With")
    return fail(Stage::Rewrite, "the access is not in a simple statement", line);
  for (const PyNode* op : ms.memops) {
    const PyNode* s = op;
    while (s && s != stmt) s = s->parent;
    if (!s) return fail(Stage::Rewrite, "masked accesses of one line in different statements", line);
  }
  std::string indent = indentation_of(ctx.task->source, stmt->line);
  if (static_cast<int>(indent.size()) + 1 != stmt->col)
    return fail(Stage::Rewrite, "the statement shares its line with another", line);
  ms.stmt = stmt;
  return ms;
}

namespace {
// `n = tl.cast(n, T)` or `n = n.to(T)`: a definition that keeps the argument's value (unsloth
// widens its bound to int64 under LONG_INDEXING).
bool keeps_argument_value(const l0::Definition& def, const std::string& name) {
  const PyNode* v = def.value;
  if (!v || v->type != "Call") return false;
  const std::string callee = normalize_triton_name(call_name(*v));
  if (callee == "tl.cast") return recipe_util::is_name(argument(*v, 0), name);
  const PyNode* func = v->child("func");
  return func && func->type == "Attribute" && func->str_field("attr") == "to" &&
         recipe_util::is_name(func->child("value"), name);
}

// The kernel arguments `expr` reads, when it is built only of constants, operators and kernel
// arguments the kernel does not reassign (and, with `constexpr_only`, only constexpr ones).
std::optional<std::vector<std::string>> argument_names(const KernelView& view, const PyNode& expr,
                                                       bool constexpr_only) {
  std::vector<std::string> names;
  bool ok = true;
  PyModule::walk(expr, [&](const PyNode& n) {
    if (n.type == "Name") {
      const std::string id = n.str_field("id");
      const bool reassigned = std::any_of(view.definitions(id).begin(), view.definitions(id).end(),
                                          [&](const l0::Definition& d) { return !keeps_argument_value(d, id); });
      if (!view.is_param(id) || reassigned || (constexpr_only && view.signature(id) != "constexpr"))
        ok = false;
      else if (std::find(names.begin(), names.end(), id) == names.end())
        names.push_back(id);
    } else if (n.type != "BinOp" && n.type != "UnaryOp" && n.type != "Constant") {
      ok = false;
    }
  });
  if (!ok || names.empty()) return std::nullopt;
  return names;
}

// `E - j * BLOCK` (or `E - BLOCK * j`) with BLOCK spelled as the block: E. The tutorial matmul's
// `offs_k < K - k * BLOCK_SIZE_K` is the block index `k * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)`
// against K, whatever integer k is, so it is even exactly when K is.
const PyNode* less_block_multiple(const KernelView& view, const PyNode& limit, const PyNode& block) {
  if (limit.type != "BinOp" || limit.str_field("op") != "Sub") return nullptr;
  const PyNode* product = limit.child("right");
  if (!product || product->type != "BinOp" || product->str_field("op") != "Mult") return nullptr;
  const std::string block_text = view.text(block);
  for (const char* side : {"left", "right"})
    if (const PyNode* factor = product->child(side); factor && view.text(*factor) == block_text)
      return limit.child("left");
  return nullptr;
}
}  // namespace

Expected<BlockBound> block_bound(const KernelView& view, const PyNode& c, int line) {
  const KernelContext& ctx = view.ctx();
  auto b = l0::mask_bound(view, c);
  if (!b || !b->upper || b->inclusive)
    return fail(Stage::Rewrite, fmt::format("mask term `{}` is not a bound `index < n`", view.text(c)), line);
  auto bi = l0::decompose_block_index(view, *b->index);
  const PyNode* size = bi ? argument(*bi->arange, 1) : nullptr;
  const PyNode* start = bi ? argument(*bi->arange, 0) : nullptr;
  auto block_names = size ? argument_names(view, *size, true) : std::nullopt;
  if (!block_names || !start || int_constant(*start) != 0)
    return fail(Stage::Rewrite,
                fmt::format("`{}`: the index is not a block tl.arange(0, BLOCK) of a constexpr", view.text(c)), line);
  const PyNode* limit = b->limit;
  if (!argument_names(view, *limit, false))
    if (const PyNode* even_part = less_block_multiple(view, *limit, *size)) limit = even_part;
  auto limit_names = argument_names(view, *limit, false);
  if (!limit_names || limit->line != limit->end_line)
    return fail(Stage::Rewrite, fmt::format("`{}`: the bound is not an expression of kernel arguments", view.text(c)),
                line);
  BlockBound bb;
  bb.bound = *b;
  bb.index = *bi;
  bb.limit_expr = limit;
  bb.block_expr = size;
  bb.limit = recipe_util::parenthesized(ctx, *limit);
  bb.block = recipe_util::parenthesized(ctx, *size);
  bb.limit_names = std::move(*limit_names);
  bb.block_names = std::move(*block_names);
  bb.limit_value = view.value(*limit);
  if (!bb.limit_value && limit->type == "Name") bb.limit_value = ctx.launch->int_arg(limit->str_field("id"));
  bb.block_value = view.value(*size);
  bb.constexpr_only = std::all_of(bb.limit_names.begin(), bb.limit_names.end(),
                                  [&](const std::string& n) { return view.signature(n) == "constexpr"; });
  return bb;
}

std::vector<int> masked_lines(const KernelView& view) {
  std::set<int> lines;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"}))
    if (KernelView::mask_arg(*op)) lines.insert(op->line);
  return {lines.begin(), lines.end()};
}

std::string unmasked_call(const KernelContext& ctx, const PyNode& call) {
  const bool is_load = normalize_triton_name(call_name(call)) == "tl.load";
  std::vector<std::string> parts;
  int mask_pos = is_load ? 1 : 2;
  for (const auto& c : call.children) {
    if (c.field == "args" && c.index < mask_pos) parts.push_back(recipe_util::text(ctx, c));
    if (c.field == "args" && c.index > 2) parts.push_back(recipe_util::text(ctx, c));
    if (c.field == "keywords") {
      std::string k = c.str_field("arg");
      if (k != "mask" && k != "other") parts.push_back(recipe_util::text(ctx, c));
    }
  }
  std::string joined;
  for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  return fmt::format("{}({})", recipe_util::text(ctx, *call.child("func")), joined);
}

namespace {

bool is_simple_statement(const PyNode& n) {
  return n.type == "Assign" || n.type == "AugAssign" || n.type == "AnnAssign" || n.type == "Expr" || n.type == "Pass";
}

}  // namespace

std::vector<std::vector<MaskedStatement>> sibling_groups(std::vector<MaskedStatement> statements) {
  std::sort(statements.begin(), statements.end(), [](const auto& a, const auto& b) { return a.stmt->line < b.stmt->line; });
  std::vector<std::vector<MaskedStatement>> groups;
  for (auto& ms : statements) {
    bool joined = false;
    if (!groups.empty()) {
      const PyNode* prev = groups.back().back().stmt;
      if (prev->parent == ms.stmt->parent && prev->field == ms.stmt->field) {
        joined = true;
        for (const PyNode* sib : prev->parent->children_in(prev->field))
          if (sib->index > prev->index && sib->index < ms.stmt->index && !is_simple_statement(*sib)) joined = false;
      }
    }
    if (joined) groups.back().push_back(std::move(ms));
    else groups.push_back({std::move(ms)});
  }
  return groups;
}

Expected<TextEdit> guard(const KernelContext& ctx, const std::vector<MaskedStatement>& group, const std::string& condition) {
  int first = group.front().stmt->line, last = group.back().stmt->end_line;
  std::string indent = indentation_of(ctx.task->source, first);
  std::string block;
  for (int l = first; l <= last; ++l) block += std::string(ctx.task->line(l)) + "\n";
  std::vector<TextEdit> inner;
  for (const auto& ms : group)
    for (const PyNode* op : ms.memops) {
      TextEdit e = TextEdit::replace(*op, unmasked_call(ctx, *op));
      e.line -= first - 1;
      e.end_line -= first - 1;
      inner.push_back(std::move(e));
    }
  std::string unmasked = TDX_TRY(apply_edits(block, inner));
  auto reindent = [&](const std::string& b) {  // the statements' own indentation -> one level deeper
    std::string out;
    size_t start = 0;
    while (start < b.size()) {
      size_t end = b.find('\n', start);
      if (end == std::string::npos) end = b.size();
      std::string l = b.substr(start, end - start);
      if (l.rfind(indent, 0) == 0) l = l.substr(indent.size());
      out += (l.empty() ? "" : indent + "    ") + l + "\n";
      start = end + 1;
    }
    return out;
  };
  return TextEdit{first, 1, last + 1, 1,
                  fmt::format("{0}if {1}:\n{2}{0}else:\n{3}", indent, condition, reindent(unmasked), reindent(block))};
}

}  // namespace tdx::mask_guard
