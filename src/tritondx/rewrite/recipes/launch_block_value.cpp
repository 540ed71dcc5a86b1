#include "tritondx/rewrite/recipes/launch_block_value.h"

#include <fmt/format.h>

#include "tritondx/core/text.h"
#include "tritondx/rewrite/source_edit.h"

namespace tdx::block_grid {
namespace {

// `NAME = <int>` at the top of the module, the only assignment of NAME anywhere, read by the
// launch function and by no other function (a kernel reading it as a global would change too).
const PyNode* module_constant(const KernelContext& ctx, const PyNode& launch_function, const std::string& name) {
  if (!ctx.ast) return nullptr;
  const PyNode& root = ctx.ast->root();
  const PyNode* def = launch_util::single_assignment(root, name);
  if (!def || def->parent != &root) return nullptr;
  for (const PyNode* f : root.children_in("body")) {
    if (f->type != "FunctionDef" || f == &launch_function || !PyModule::names_read(*f).count(name)) continue;
    bool parameter = false;  // a kernel's own `BLOCK: tl.constexpr` shadows the global
    if (const PyNode* args = f->child("args"))
      for (const PyNode* a : args->children_in("args")) parameter |= a->str_field("arg") == name;
    if (!parameter) return nullptr;
  }
  return def;
}

// `a, NAME = f(...)` at the top of `function`, the only store of NAME in it; else nullptr.
const PyNode* unpacked_once(const PyNode& function, const std::string& name) {
  const PyNode* found = nullptr;
  int stores = 0;
  PyModule::walk(function, [&](const PyNode& n) {
    if (n.type != "Name" || n.str_field("id") != name || n.str_field("ctx") != "Store") return;
    ++stores;
    const PyNode* tuple = n.parent;
    const PyNode* assign = tuple && tuple->type == "Tuple" ? tuple->parent : nullptr;
    if (assign && assign->type == "Assign" && tuple->field == "targets" && assign->children_in("targets").size() == 1 &&
        assign->parent == &function)
      found = assign;
  });
  return stores == 1 ? found : nullptr;
}

std::string capped_or_scaled(const BlockChange& c, const std::string& e, bool atom) {
  if (c.to < c.from) return fmt::format("min({}, {})", c.to, e);
  return atom ? fmt::format("{} * {}", e, c.to / c.from) : fmt::format("({}) * {}", e, c.to / c.from);
}

bool is_atom(const PyNode& e) {
  return e.type == "Call" || e.type == "Name" || e.type == "Attribute" || e.type == "Subscript";
}

// An `assert` or an `if ...: raise` of `function` whose test reads `name`: the block is also the
// limit of the sizes the launch accepts (`if N > BLOCK_SIZE: raise RuntimeError(...)`).
const PyNode* size_guard(const PyNode& function, const std::string& name) {
  const PyNode* guard = nullptr;
  PyModule::walk(function, [&](const PyNode& n) {
    if (guard || (n.type != "Assert" && n.type != "If") || !n.child("test")) return;
    if (!PyModule::names_read(*n.child("test")).contains(name)) return;
    bool raises = n.type == "Assert";
    for (const PyNode* s : n.children_in("body")) raises |= s->type == "Raise";
    if (raises) guard = &n;
  });
  return guard;
}

}  // namespace

Expected<LaunchBlockValue> edit_launch_block_value(const KernelContext& ctx, const launch_util::LaunchSite& site,
                                                   const BlockChange& c, std::vector<TextEdit>& edits,
                                                   std::set<const PyNode*>& edited) {
  LaunchBlockValue out;
  const PyNode* arg = launch_util::passed_argument(ctx, *site.call, c.name);
  if (!arg) return fail(Stage::Rewrite, fmt::format("the launch call does not pass {}", c.name), site.call->line);
  if (int_constant(*arg) == c.from) {
    out.already_edited = !edited.insert(arg).second;
    if (!out.already_edited) edits.push_back(TextEdit::replace(*arg, std::to_string(c.to)));
    return out;
  }
  if (arg->type != "Name") {
    out.computed = arg;
  } else {
    out.launch_var = arg->str_field("id");
    if (const PyNode* guard = c.to < c.from ? size_guard(*site.enclosing, out.launch_var) : nullptr)
      return fail(Stage::Rewrite,
                  fmt::format("line {}: the launch checks the sizes it accepts against {} (`{}`); a smaller block "
                              "would refuse them",
                              guard->line, out.launch_var, ltrim(ctx.task->line(guard->line))),
                  guard->line);
    const PyNode* def = launch_util::single_assignment(*site.enclosing, out.launch_var);
    if (!def) def = module_constant(ctx, *site.enclosing, out.launch_var);
    const PyNode* value = def ? def->child("value") : nullptr;
    if (value && int_constant(*value) == c.from) {
      edits.push_back(TextEdit::replace(*value, std::to_string(c.to)));
      edited.insert(value);
      return out;
    }
    if (value && def->type == "Assign" && def->parent == site.enclosing) {
      out.computed = value;
    } else if (const PyNode* unpack = unpacked_once(*site.enclosing, out.launch_var)) {
      // The helper's result is capped or scaled on a line of its own, right after the unpacking.
      out.computed = unpack->child("value");
      PyModule::walk(*unpack, [&](const PyNode& n) { edited.insert(&n); });
      edits.push_back(TextEdit::insert_lines(
          unpack->end_line + 1, fmt::format("{}{} = {}\n", indentation_of(ctx.task->source, unpack->line),
                                            out.launch_var, capped_or_scaled(c, out.launch_var, true))));
      return out;
    } else if (!def && ctx.ast && launch_util::single_assignment(ctx.ast->root(), out.launch_var)) {
      return fail(Stage::Rewrite,
                  fmt::format("{} is a module constant that functions other than the launch read too: changing it "
                              "would change more than the launch",
                              out.launch_var),
                  arg->line);
    } else {
      return fail(Stage::Rewrite,
                  fmt::format("the launch computes {} as `{}`, not assigned or unpacked once at the top of the launch "
                              "function; retuning it needs that computation changed",
                              c.name, out.launch_var),
                  arg->line);
    }
  }
  // The computation is rewritten whole: its literals (a cap of 65536) are no other use of the value.
  PyModule::walk(*out.computed, [&](const PyNode& n) { edited.insert(&n); });
  edited.insert(out.computed);
  edits.push_back(TextEdit::replace(
      *out.computed, capped_or_scaled(c, node_text(*out.computed, ctx.task->lines), is_atom(*out.computed))));
  return out;
}

}  // namespace tdx::block_grid
