// integrity-output-cache: state kept across launch() calls, which lets a candidate return a
// result computed for earlier inputs: `global` rebinding, module-level containers mutated in
// host functions, attributes stored on module-level functions or classes, memoizers, and keys
// made of data_ptr()/id()/_version (the same pointer does not mean the same values). Functions,
// methods and lambdas anywhere in host code count.
#include <algorithm>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

constexpr std::string_view kMutators[] = {"__setitem__", "add", "append", "extend", "insert", "setdefault",
                                          "update"};
constexpr std::string_view kMemoizers[] = {"functools.cache", "functools.cached_property", "functools.lru_cache"};

// Is this data_ptr()/id() result used to look something up (a key, a membership test)?
bool used_as_key(const PyNode& n) {
  for (const PyNode* child = &n, *p = n.parent; p; child = p, p = p->parent) {
    if (p->type == "BinOp") break;  // x.data_ptr() % 16: alignment arithmetic, not identity
    if (p->type == "Subscript" && child->field == "slice") return true;
    if (p->type == "Dict" && child->field == "keys") return true;
    if (p->type == "Compare") {
      auto ops = p->fields.value("ops", nlohmann::json::array());
      for (const auto& op : ops)
        if (op == "In" || op == "NotIn" || op == "Is" || op == "Eq") return true;
    }
    if (p->type == "Call" && child->field == "args") {
      const PyNode* func = p->child("func");
      std::string attr = func && func->type == "Attribute" ? func->str_field("attr") : std::string();
      if (attr == "get" || attr == "setdefault" || attr == "pop" || attr == "__contains__" || attr == "__getitem__")
        return true;
    }
    if (p->type.ends_with("Assign") || p->type == "Return" || p->type == "Expr" || p->type == "FunctionDef") break;
  }
  return false;
}

// Inside the body of a function or lambda (not its decorators or defaults): runs on every call.
bool runs_per_call(const PyNode& n) {
  for (const PyNode *child = &n, *p = n.parent; p; child = p, p = p->parent)
    if ((p->type == "FunctionDef" || p->type == "AsyncFunctionDef" || p->type == "Lambda") && child->field == "body")
      return true;
  return false;
}

}  // namespace

void check_output_cache(const CheckContext& ctx, Sink& sink) {
  const ModuleFacts& cand = ctx.candidate;
  auto is_function_or_class = [&](const std::string& name) {
    return cand.function(name) || std::ranges::any_of(cand.definitions(name), [](const PyNode* d) {
      return d->type == "FunctionDef" || d->type == "AsyncFunctionDef" || d->type == "ClassDef";
    });
  };
  cand.walk_host([&](const PyNode& n) {
    // Memoizers anywhere: decorators of functions and methods, functools.lru_cache(...)(launch).
    if (ModuleFacts::is_chain_top(n) && n.fields.value("ctx", "Load") == "Load") {
      std::string name = cand.resolve(n);
      if (std::ranges::find(kMemoizers, name) != std::end(kMemoizers))
        sink.report("integrity-output-cache", n.line,
                    fmt::format("`{}` returns remembered results for repeated arguments", name));
    }
    // The rest is state written by code that runs on every call (module and class bodies run once).
    if (!runs_per_call(n)) return;
    if (n.type == "Global" || n.type == "Nonlocal")
      sink.report("integrity-output-cache", n.line,
                  "host code rebinds module state (`global`): launch() must not keep results across calls");
    if (n.type == "Subscript" && n.fields.value("ctx", "") != "Load") {
      const PyNode* value = n.child("value");
      if (value && value->type == "Name" && cand.globals().contains(value->str_field("id")))
        sink.report("integrity-output-cache", n.line,
                    fmt::format("host code stores into the module-level `{}` (state across calls)",
                                value->str_field("id")));
    }
    if (n.type == "Attribute" && n.fields.value("ctx", "") != "Load") {
      const PyNode* value = n.child("value");
      if (value && value->type == "Name" && is_function_or_class(value->str_field("id")))
        sink.report("integrity-output-cache", n.line,
                    fmt::format("host code stores an attribute on the module-level `{}` (state across calls)",
                                value->str_field("id")));
    }
    if (n.type == "Call") {
      const PyNode* func = n.child("func");
      if (func && func->type == "Attribute") {
        const PyNode* value = func->child("value");
        std::string attr = func->str_field("attr");
        if (value && value->type == "Name" && cand.globals().contains(value->str_field("id")) &&
            std::ranges::find(kMutators, attr) != std::end(kMutators))
          sink.report("integrity-output-cache", n.line,
                      fmt::format("host code mutates the module-level `{}` with .{}() (state across calls)",
                                  value->str_field("id"), attr));
        if ((attr == "data_ptr" || attr == "untyped_storage") && used_as_key(n))
          sink.report("integrity-output-cache", n.line,
                      "a tensor's data_ptr() is used as a key: the same pointer can hold new values");
      }
      if (func && func->type == "Name" && func->str_field("id") == "id" && used_as_key(n))
        sink.report("integrity-output-cache", n.line,
                    "id() of an argument is used as a key: the same object can hold new values");
    }
    if (n.type == "Attribute" && n.str_field("attr") == "_version")
      sink.report("integrity-output-cache", n.line, "host code reads a tensor's _version (change tracking)");
  });
}

}  // namespace tdx::integrity
