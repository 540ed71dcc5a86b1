// ModuleFacts::launch_reachable: the code launch() can run, followed through the names it
// reads — functions, lambdas and values bound at module level, classes and their methods.
#include <deque>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

// Methods Python runs without the caller naming them: construction and calling an instance.
constexpr std::string_view kImplicitMethods[] = {"__init__", "__new__", "__post_init__", "__call__"};
// What torch.nn.Module.__call__ runs.
constexpr std::string_view kModuleMethods[] = {"forward"};
// What torch.autograd.Function.apply and the backward pass run.
constexpr std::string_view kAutogradMethods[] = {"forward", "backward", "setup_context", "jvp", "vjp"};

enum class ClassKind { Plain, Module, AutogradFunction };

bool contains(std::span<const std::string_view> list, std::string_view name) {
  return std::ranges::find(list, name) != list.end();
}

bool is_function(const PyNode& n) { return n.type == "FunctionDef" || n.type == "AsyncFunctionDef"; }

bool is_staticmethod(const PyNode& def) {
  for (const auto* deco : def.children_in("decorator_list"))
    if (deco->type == "Name" && deco->str_field("id") == "staticmethod") return true;
  return false;
}

class Reacher {
 public:
  explicit Reacher(const ModuleFacts& facts) : facts_(facts) {}

  LaunchReach run() {
    if (const PyNode* launch = facts_.function("launch")) enter_function(*launch);
    while (!todo_.empty()) {
      const PyNode* unit = todo_.front();
      todo_.pop_front();
      visit(*unit);
    }
    return std::move(reach_);
  }

 private:
  // Queues a code unit; false if it was queued before.
  bool enter(const PyNode& unit) {
    if (!entered_.insert(&unit).second) return false;
    reach_.code.push_back(&unit);
    todo_.push_back(&unit);
    return true;
  }

  void enter_function(const PyNode& def) {
    if (enter(def)) reach_.functions.emplace(def.str_field("name"), &def);
  }

  void enter_method(const PyNode& def) {
    if (enter(def)) reach_.methods.emplace(def.str_field("name"), &def);
  }

  // A module-level name read by reachable code: whatever it is bound to runs or may be called.
  void read_name(const std::string& name) {
    for (const PyNode* def : facts_.definitions(name)) {
      if (def->type == "ClassDef") {
        use_class(*def);
      } else if (is_function(*def)) {
        enter_function(*def);
      } else if (enter(*def) && def->type == "Lambda") {
        reach_.functions.emplace(name, def);
      }
    }
  }

  void read_attribute(const std::string& attr) {
    if (!attributes_.insert(attr).second) return;
    for (const PyNode* cls : reach_.classes)
      for (const auto& stmt : cls->children)
        if (stmt.field == "body" && is_function(stmt) && stmt.str_field("name") == attr) enter_method(stmt);
  }

  ClassKind kind_of(const PyNode& cls, int depth = 0) const {
    if (depth > 16) return ClassKind::Plain;
    for (const auto* base : cls.children_in("bases")) {
      std::string name = facts_.resolve(*base);
      if (name == "torch.autograd.Function" || name == "torch.autograd.function.Function")
        return ClassKind::AutogradFunction;
      if (name == "torch.nn.Module" || name == "torch.nn.modules.module.Module") return ClassKind::Module;
      if (base->type != "Name") continue;
      for (const PyNode* def : facts_.definitions(base->str_field("id")))
        if (def->type == "ClassDef")
          if (ClassKind k = kind_of(*def, depth + 1); k != ClassKind::Plain) return k;
    }
    return ClassKind::Plain;
  }

  void use_class(const PyNode& cls) {
    if (std::ranges::find(reach_.classes, &cls) != reach_.classes.end()) return;
    reach_.classes.push_back(&cls);
    ClassKind kind = kind_of(cls);
    for (const auto& stmt : cls.children) {
      if (stmt.field == "decorator_list" || stmt.field == "bases" || stmt.field == "keywords") {
        enter(stmt);  // base classes and decorators are read when the class is created
        continue;
      }
      if (stmt.field != "body") continue;
      if (!is_function(stmt)) {
        enter(stmt);  // class attributes run when the class is created
        continue;
      }
      std::string name = stmt.str_field("name");
      if (contains(kImplicitMethods, name) || attributes_.contains(name) ||
          (kind == ClassKind::Module && contains(kModuleMethods, name)) ||
          (kind == ClassKind::AutogradFunction && contains(kAutogradMethods, name)))
        enter_method(stmt);
    }
  }

  void visit(const PyNode& unit) {
    PyModule::walk(unit, [&](const PyNode& n) {
      if (&n != &unit && is_function(n)) reach_.functions.emplace(n.str_field("name"), &n);
      if (n.type == "Assign" && n.child("value") && n.child("value")->type == "Lambda")
        for (const auto* target : n.children_in("targets"))
          if (target->type == "Name") reach_.functions.emplace(target->str_field("id"), n.child("value"));
      if (n.type == "Name" && n.fields.value("ctx", "Load") == "Load") read_name(n.str_field("id"));
      if (n.type == "Attribute") read_attribute(n.str_field("attr"));
    });
  }

  const ModuleFacts& facts_;
  LaunchReach reach_;
  std::set<const PyNode*> entered_;
  std::set<std::string> attributes_;
  std::deque<const PyNode*> todo_;
};

}  // namespace

LaunchReach ModuleFacts::launch_reachable() const { return Reacher(*this).run(); }

std::vector<LaunchReach::Callee> LaunchReach::callees(const PyNode& call) const {
  std::vector<Callee> out;
  const PyNode* func = call.type == "Call" ? call.child("func") : nullptr;
  if (!func) return out;
  if (func->type == "Name") {
    auto [first, last] = functions.equal_range(func->str_field("id"));
    for (auto it = first; it != last; ++it) out.push_back({it->second, false});
  } else if (func->type == "Attribute") {
    auto [first, last] = methods.equal_range(func->str_field("attr"));
    for (auto it = first; it != last; ++it) out.push_back({it->second, !is_staticmethod(*it->second)});
  }
  return out;
}

}  // namespace tdx::integrity
