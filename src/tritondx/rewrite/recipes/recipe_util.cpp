#include "tritondx/rewrite/recipes/recipe_util.h"

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

std::string text(const KernelContext& ctx, const PyNode& node) { return node_text(node, ctx.task->lines); }

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
