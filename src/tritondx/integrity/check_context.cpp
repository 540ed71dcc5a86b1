#include "tritondx/integrity/check_context.h"

#include <algorithm>

namespace tdx::integrity {

namespace {

bool is_fixed_function(std::string_view name) {
  return std::ranges::find(kFixedFunctions, name) != std::end(kFixedFunctions);
}

bool assigns_name(const PyNode& stmt, std::string_view name) {
  if (stmt.type != "Assign" && stmt.type != "AnnAssign") return false;
  for (const auto& c : stmt.children)
    if ((c.field == "targets" || c.field == "target") && c.type == "Name" && c.str_field("id") == name) return true;
  return false;
}

std::string first_segment(std::string_view dotted) {
  return std::string(dotted.substr(0, dotted.find('.')));
}

bool is_block(const PyNode& stmt) {
  static constexpr std::string_view kBlocks[] = {"If", "Try", "TryStar", "With", "AsyncWith",
                                                 "For", "AsyncFor", "While", "ExceptHandler"};
  return std::ranges::find(kBlocks, stmt.type) != std::end(kBlocks);
}

// Calls `bind(name, node)` for each name a module-level statement binds to a def, a class or
// an assigned value, entering if/try/with/for blocks.
void for_each_binding(const PyNode& stmt, const std::function<void(const std::string&, const PyNode*)>& bind) {
  if (stmt.type == "FunctionDef" || stmt.type == "AsyncFunctionDef" || stmt.type == "ClassDef") {
    bind(stmt.str_field("name"), &stmt);
  } else if (stmt.type == "Assign" || stmt.type == "AnnAssign") {
    const PyNode* value = stmt.child("value");
    for (const auto& c : stmt.children)
      if ((c.field == "targets" || c.field == "target") && c.type == "Name" && value) bind(c.str_field("id"), value);
  } else if (is_block(stmt)) {
    for (const auto& c : stmt.children)
      if (c.field == "body" || c.field == "orelse" || c.field == "finalbody" || c.field == "handlers")
        for_each_binding(c, bind);
  }
}

}  // namespace

ModuleFacts::ModuleFacts(const TaskSource& task) : task_(&task) {
  // Imports anywhere in the file (functions may import too).
  PyModule::walk(module().root(), [&](const PyNode& n) {
    if (n.type != "Import" && n.type != "ImportFrom") return;
    std::string from = n.str_field("module");
    for (const auto* alias : n.children_in("names")) {
      std::string name = alias->str_field("name");
      std::string as = alias->str_field("asname");
      if (n.type == "Import") {
        imports_.emplace_back(name, n.line);
        if (!as.empty()) aliases_[as] = name;
        else aliases_[first_segment(name)] = first_segment(name);
      } else {
        std::string full = from.empty() ? name : from + "." + name;
        imports_.emplace_back(full, n.line);
        aliases_[as.empty() ? name : as] = full;
      }
    }
  });

  const PyNode& root = module().root();
  for (const auto& stmt : root.children) {
    if (stmt.field != "body") continue;
    if (stmt.type == "FunctionDef" || stmt.type == "AsyncFunctionDef") {
      bool kernel = false;
      for (const auto* deco : stmt.children_in("decorator_list")) {
        const PyNode* target = deco->type == "Call" ? deco->child("func") : deco;
        std::string name = target ? resolve(*target) : std::string();
        if (name.starts_with("triton.") &&
            (name.ends_with(".jit") || name.ends_with(".autotune") || name.ends_with(".heuristics")))
          kernel = true;
      }
      std::string name = stmt.str_field("name");
      if (kernel) {
        kernels_.insert(name);
        // Decorator arguments run on the host: autotune pre_hook/post_hook/prune_configs_by,
        // heuristics lambdas, triton.Config(pre_hook=...).
        for (const auto* deco : stmt.children_in("decorator_list")) host_.push_back(deco);
      }
      if (kernel || is_fixed_function(name)) continue;
    } else if ((stmt.type == "Assign" || stmt.type == "AnnAssign")) {
      if (assigns_name(stmt, kToleranceName)) continue;
      const PyNode* value = stmt.child("value");
      for (const auto& c : stmt.children)
        if ((c.field == "targets" || c.field == "target") && c.type == "Name") {
          globals_[c.str_field("id")] = value;
          // k = triton.jit(fn)
          if (value && value->type == "Call" && resolve_call(*value).starts_with("triton.") &&
              resolve_call(*value).ends_with(".jit"))
            kernels_.insert(c.str_field("id"));
        }
    }
    host_.push_back(&stmt);
  }

  for (const auto& stmt : root.children) {
    if (stmt.field != "body") continue;
    for_each_binding(stmt, [&](const std::string& name, const PyNode* node) {
      if (!is_kernel(name) && !is_fixed_function(name) && name != kToleranceName) definitions_[name].push_back(node);
    });
  }
}

std::span<const PyNode* const> ModuleFacts::definitions(std::string_view name) const {
  auto it = definitions_.find(name);
  if (it == definitions_.end()) return {};
  return it->second;
}

std::string ModuleFacts::resolve(const PyNode& node) const {
  std::string dotted = dotted_name(node);
  if (dotted.empty()) return {};
  std::string head = first_segment(dotted);
  auto it = aliases_.find(head);
  if (it == aliases_.end()) return dotted;
  return it->second + dotted.substr(head.size());
}

std::string ModuleFacts::resolve_call(const PyNode& call) const {
  const PyNode* func = call.type == "Call" ? call.child("func") : nullptr;
  return func ? resolve(*func) : std::string();
}

void ModuleFacts::walk_host(const std::function<void(const PyNode&)>& visit) const {
  for (const PyNode* stmt : host_) PyModule::walk(*stmt, visit);
}

bool ModuleFacts::is_chain_top(const PyNode& node) {
  if (node.type != "Attribute" && node.type != "Name") return false;
  return !(node.parent && node.parent->type == "Attribute" && node.field == "value");
}

std::string canonical(const PyNode& node) {
  std::string out = node.type;
  if (!node.fields.empty()) out += node.fields.dump();
  out += "(";
  for (const auto& c : node.children) {
    out += c.field;
    if (c.index >= 0) out += "#" + std::to_string(c.index);
    out += "=" + canonical(c) + ";";
  }
  return out + ")";
}

void Sink::report(std::string_view id, int line, std::string message) {
  for (const auto& v : *out_)
    if (v.id == id && v.line == line) return;
  out_->push_back({std::string(id), line, std::move(message)});
}

}  // namespace tdx::integrity
