#include "tritondx/rewrite/recipes/recipe_util.h"

#include <algorithm>

#include <fmt/format.h>

namespace tdx::recipe_util {

std::vector<const PyNode*> kernel_calls_on_line(const KernelContext& ctx, std::initializer_list<std::string_view> names,
                                                int line) {
  std::vector<const PyNode*> out;
  if (!ctx.function) return out;
  PyModule::walk(*ctx.function, [&](const PyNode& n) {
    if (n.type != "Call" || n.line != line) return;
    std::string name = normalize_triton_name(call_name(n));
    for (auto want : names)
      if (name == want) out.push_back(&n);
  });
  return out;
}

const PyNode* kernel_loop_on_line(const KernelContext& ctx, int line) {
  const PyNode* loop = nullptr;
  if (ctx.function)
    PyModule::walk(*ctx.function, [&](const PyNode& n) {
      if (!loop && n.type == "For" && n.line == line) loop = &n;
    });
  return loop;
}

std::string text(const KernelContext& ctx, const PyNode& node) { return node_text(node, ctx.task->lines); }

std::string squash(std::string s) { return squash_blanks(std::move(s)); }

std::string parenthesized(const KernelContext& ctx, const PyNode& node) {
  bool atomic = node.type == "Name" || node.type == "Constant" || node.type == "Call" || node.type == "Attribute" ||
                node.type == "Subscript";
  return atomic ? text(ctx, node) : "(" + text(ctx, node) + ")";
}

std::optional<std::string> with_names_replaced(
    const KernelContext& ctx, const PyNode& node,
    const std::function<std::optional<std::string>(const std::string&)>& replacement) {
  if (node.line != node.end_line) return std::nullopt;
  std::vector<const PyNode*> names;
  PyModule::walk(node, [&](const PyNode& n) {
    if (n.type == "Name") names.push_back(&n);
  });
  std::sort(names.begin(), names.end(), [](const PyNode* a, const PyNode* b) { return a->col < b->col; });
  std::string source = text(ctx, node), out;
  size_t at = 0;
  for (const PyNode* n : names) {
    auto r = replacement(n->str_field("id"));
    if (!r) continue;
    size_t begin = static_cast<size_t>(n->col - node.col), end = static_cast<size_t>(n->end_col - node.col);
    if (begin < at || end > source.size()) return std::nullopt;
    const bool atomic = r->find_first_of(" +-*/%<>=&|") == std::string::npos;
    out += source.substr(at, begin - at) + (atomic ? *r : "(" + *r + ")");
    at = end;
  }
  return out + source.substr(at);
}

namespace {
void collect_terms(const PyNode& e, std::vector<const PyNode*>& out) {
  if (e.type == "BinOp" && e.str_field("op") == "Add" && e.child("left") && e.child("right")) {
    collect_terms(*e.child("left"), out);
    collect_terms(*e.child("right"), out);
    return;
  }
  out.push_back(&e);
}
}  // namespace

std::vector<const PyNode*> sum_terms(const PyNode& expr) {
  std::vector<const PyNode*> out;
  collect_terms(expr, out);
  return out;
}

bool is_name(const PyNode* node, std::string_view id) {
  return node && node->type == "Name" && node->str_field("id") == id;
}

std::string assigned_name(const PyNode& stmt) {
  auto t = stmt.children_in("targets");
  return stmt.type == "Assign" && t.size() == 1 && t[0]->type == "Name" ? t[0]->str_field("id") : std::string();
}

int program_id_axis(const PyNode& call) {
  const PyNode* axis = argument(call, 0) ? argument(call, 0) : keyword(call, "axis");
  auto a = axis ? int_constant(*axis) : std::nullopt;
  return a ? static_cast<int>(*a) : -1;
}

std::optional<TextEdit> define_module_constexpr(const KernelContext& ctx, const std::string& name,
                                                const std::string& value) {
  const PyNode& module = ctx.ast->root();
  int after_line = 0;
  for (const PyNode* stmt : module.children_in("body")) {
    if (stmt->type == "Import" || stmt->type == "ImportFrom") after_line = stmt->end_line;
    if (stmt->type == "Assign")
      for (const PyNode* t : stmt->children_in("targets"))
        if (t->type == "Name" && t->str_field("id") == name) return std::nullopt;
  }
  return TextEdit::insert_lines(after_line + 1, fmt::format("{} = tl.constexpr({})\n", name, value));
}

}  // namespace tdx::recipe_util
