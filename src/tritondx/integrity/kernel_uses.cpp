// Where reachable code launches one of the module's kernels, or hands one (`k`, `k[grid]`,
// `k.run`) to a function that launches it or to one the check cannot see into.
#include "tritondx/integrity/kernel_uses.h"

#include <map>
#include <optional>

namespace tdx::integrity {

namespace {

// The identifier a value hands on for launching: `k` in `k`, `k[grid]`, `k.run`, `k.warmup`,
// `*k`; "" otherwise.
std::string launchable_name(const PyNode& value) {
  const PyNode* n = value.type == "Starred" ? value.child("value") : &value;
  if (n && (n->type == "Subscript" ||
            (n->type == "Attribute" && (n->str_field("attr") == "run" || n->str_field("attr") == "warmup"))))
    n = n->child("value");
  return n && n->type == "Name" ? n->str_field("id") : std::string();
}

// The identifier a Call launches: `k` in k[grid](...), k.run(...), k.warmup(...).
std::string launched_name(const PyNode& call) {
  const PyNode* func = call.child("func");
  if (!func || func->type == "Name") return {};
  return launchable_name(*func);
}

// One argument of a Call: positional (its index) or keyword (its name; "" for **kwargs).
struct Argument {
  const PyNode* value;
  int position;
  std::optional<std::string> keyword;
};

std::vector<Argument> arguments_of(const PyNode& call) {
  std::vector<Argument> out;
  for (const auto& c : call.children) {
    if (c.field == "args") out.push_back({&c, c.index, std::nullopt});
    if (c.field == "keywords" && c.child("value")) out.push_back({c.child("value"), -1, c.str_field("arg")});
  }
  return out;
}

// The parameters of the callee an argument may bind (a starred argument or **kwargs: any).
std::vector<std::string> bound_parameters(const LaunchReach::Callee& callee, const Argument& arg) {
  const PyNode* params = callee.def->child("args");
  if (!params) return {};
  std::vector<std::string> positional, keyword_only, all;
  for (const auto* a : params->children_in("posonlyargs")) positional.push_back(a->str_field("arg"));
  for (const auto* a : params->children_in("args")) positional.push_back(a->str_field("arg"));
  for (const auto* a : params->children_in("kwonlyargs")) keyword_only.push_back(a->str_field("arg"));
  std::string vararg = params->child("vararg") ? params->child("vararg")->str_field("arg") : "";
  std::string kwarg = params->child("kwarg") ? params->child("kwarg")->str_field("arg") : "";
  all = positional;
  all.insert(all.end(), keyword_only.begin(), keyword_only.end());
  for (const auto& name : {vararg, kwarg})
    if (!name.empty()) all.push_back(name);

  if (arg.value->type == "Starred" || (arg.keyword && arg.keyword->empty())) return all;
  if (arg.keyword) {
    if (std::ranges::find(all, *arg.keyword) != all.end()) return {*arg.keyword};
    return kwarg.empty() ? std::vector<std::string>{} : std::vector<std::string>{kwarg};
  }
  size_t index = static_cast<size_t>(arg.position) + (callee.binds_first ? 1 : 0);
  if (index < positional.size()) return {positional[index]};
  return vararg.empty() ? std::vector<std::string>{} : std::vector<std::string>{vararg};
}

class Finder {
 public:
  Finder(const ModuleFacts& facts, const LaunchReach& reach) : facts_(facts), reach_(reach) {}

  // A function imported from another module: the check cannot see what it does with its arguments.
  bool imported(const PyNode& call) const {
    const PyNode* func = call.child("func");
    std::string dotted = func ? dotted_name(*func) : std::string();
    return !dotted.empty() && facts_.is_import_alias(dotted.substr(0, dotted.find('.')));
  }

  // Does a function of the module that `call` runs launch what `arg` hands it?
  bool helper_launches(const PyNode& call, const Argument& arg) {
    for (const auto& callee : reach_.callees(call))
      for (const auto& param : bound_parameters(callee, arg))
        if (launches_parameter(*callee.def, param)) return true;
    return false;
  }

 private:
  // `def` launches its parameter: param[grid](...), param.run(...), or hands it on to a
  // function that does (or to an imported one).
  bool launches_parameter(const PyNode& def, const std::string& param) {
    auto key = std::pair{&def, param};
    if (auto it = known_.find(key); it != known_.end()) return it->second;
    known_[key] = false;  // a cycle does not launch
    bool found = false;
    PyModule::walk(def, [&](const PyNode& n) {
      if (found || n.type != "Call") return;
      if (launched_name(n) == param) found = true;
      for (const auto& arg : arguments_of(n))
        if (!found && launchable_name(*arg.value) == param) found = imported(n) || helper_launches(n, arg);
    });
    return known_[key] = found;
  }

  const ModuleFacts& facts_;
  const LaunchReach& reach_;
  std::map<std::pair<const PyNode*, std::string>, bool> known_;
};

}  // namespace

std::vector<KernelUse> kernel_uses(const ModuleFacts& facts, const LaunchReach& reach) {
  std::vector<KernelUse> out;
  Finder finder(facts, reach);
  for (const PyNode* unit : reach.code) {
    PyModule::walk(*unit, [&](const PyNode& n) {
      if (n.type != "Call") return;
      if (std::string k = launched_name(n); facts.is_kernel(k)) out.push_back({k, KernelUseKind::Launch, n.line});
      for (const auto& arg : arguments_of(n)) {
        std::string k = launchable_name(*arg.value);
        if (!facts.is_kernel(k)) continue;
        if (finder.imported(n)) out.push_back({k, KernelUseKind::ToImportedCall, n.line});
        else if (finder.helper_launches(n, arg)) out.push_back({k, KernelUseKind::ToLaunchingHelper, n.line});
      }
    });
  }
  return out;
}

}  // namespace tdx::integrity
