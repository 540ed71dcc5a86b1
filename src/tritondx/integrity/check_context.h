// What every integrity check asks about a task module: import aliases, kernels, host code
// (everything the CPU runs: launch, its helpers, module-level statements), and a sink that
// stamps the check id on each violation.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/integrity/integrity.h"

namespace tdx::integrity {

// The task's fixed parts: a candidate must keep them as the original wrote them.
inline constexpr std::string_view kFixedFunctions[] = {"reference", "make_inputs", "flops", "bytes_moved"};
inline constexpr std::string_view kToleranceName = "TOLERANCE";
// The inputs launch() updates in place (docs/task-format.md): what the timing restores between
// calls and what counts as output, so part of the yardstick too.
inline constexpr std::string_view kMutatesName = "MUTATES";

// What launch() can run, as far as names show it: launch itself; the module-level functions,
// lambdas and bound values (a functools.partial, an instance) its code names; the methods of
// the classes it names that Python runs without naming them (__init__, __call__,
// nn.Module.forward, autograd.Function.forward/backward) or that it names as attributes
// (`Op.run(...)`, `self.forward(...)`); transitively. Kernels and fixed parts are not entered.
struct LaunchReach {
  // FunctionDef, Lambda, class-level statements and bound values, each to be walked whole
  // (nested defs and lambdas included).
  std::vector<const PyNode*> code;
  std::vector<const PyNode*> classes;  // the ClassDefs it names
  // The functions a call can name: by identifier (defs and lambdas bound to a name, nested
  // ones included) and, for methods of `classes`, by attribute name.
  std::multimap<std::string, const PyNode*, std::less<>> functions;
  std::multimap<std::string, const PyNode*, std::less<>> methods;

  struct Callee {
    const PyNode* def;  // FunctionDef or Lambda
    bool binds_first;   // a method called on an instance or class: its first parameter is bound
  };
  // The functions of the module a Call in this code may run (none for imported or unknown callees).
  std::vector<Callee> callees(const PyNode& call) const;
};

class ModuleFacts {
 public:
  explicit ModuleFacts(const TaskSource& task);

  const TaskSource& task() const { return *task_; }
  const PyModule& module() const { return task_->module; }

  // Full dotted name of a Name/Attribute chain with import aliases resolved
  // ("F.softmax" -> "torch.nn.functional.softmax", "tl.dot" -> "triton.language.dot"); "" if
  // the node is not a dotted chain.
  std::string resolve(const PyNode& node) const;
  // Same for a Call's callee.
  std::string resolve_call(const PyNode& call) const;
  // True when `name` (a bare identifier) is bound by an import.
  bool is_import_alias(std::string_view name) const { return aliases_.contains(std::string(name)); }
  // Every module imported (full names: "torch.nn.functional", "ctypes") with the line.
  const std::vector<std::pair<std::string, int>>& imports() const { return imports_; }

  // @triton.jit (possibly autotuned/heuristics-wrapped) kernels at top level.
  const std::set<std::string>& kernels() const { return kernels_; }
  bool is_kernel(std::string_view name) const { return kernels_.contains(std::string(name)); }
  // Top-level FunctionDef by name (kernels included), nullptr if absent.
  const PyNode* function(std::string_view name) const { return module().function(name); }
  // What a module-level name is bound to: its def/class statements (also those inside
  // module-level if/try/with blocks) and the values of its plain assignments. Kernels and the
  // fixed parts have none.
  std::span<const PyNode* const> definitions(std::string_view name) const;
  // The code launch() can run, followed through names (launch_reachable.cpp).
  LaunchReach launch_reachable() const;

  // Host code: top-level statements except kernel definitions and the fixed parts.
  const std::vector<const PyNode*>& host() const { return host_; }
  // Pre-order walk of every host node.
  void walk_host(const std::function<void(const PyNode&)>& visit) const;
  // Names bound at module level by a plain assignment (constants, containers, ...).
  const std::map<std::string, const PyNode*>& globals() const { return globals_; }

  // Outermost dotted chains under `from`: Attribute/Name nodes not themselves the value of
  // an enclosing Attribute, with their resolved names.
  static bool is_chain_top(const PyNode& node);

 private:
  const TaskSource* task_;
  std::map<std::string, std::string> aliases_;  // local name -> full module/object path
  std::vector<std::pair<std::string, int>> imports_;
  std::set<std::string> kernels_;
  std::vector<const PyNode*> host_;
  std::map<std::string, const PyNode*> globals_;
  std::map<std::string, std::vector<const PyNode*>, std::less<>> definitions_;
};

// A structural dump of a subtree without positions: equal dumps = same code up to layout and
// comments.
std::string canonical(const PyNode& node);

class Sink {
 public:
  explicit Sink(std::vector<Violation>& out) : out_(&out) {}
  void report(std::string_view id, int line, std::string message);

 private:
  std::vector<Violation>* out_;
};

struct CheckContext {
  const ModuleFacts& original;
  const ModuleFacts& candidate;
};

// The check families (one file each).
void check_kernel_launch(const CheckContext& ctx, Sink& sink);     // kernel_launch.cpp
void check_fixed_parts(const CheckContext& ctx, Sink& sink);       // fixed_parts.cpp
void check_torch_compute(const CheckContext& ctx, Sink& sink);     // torch_compute.cpp
void check_modules(const CheckContext& ctx, Sink& sink);           // forbidden_modules.cpp
void check_control_and_state(const CheckContext& ctx, Sink& sink); // side_effects.cpp
void check_output_cache(const CheckContext& ctx, Sink& sink);      // output_cache.cpp
void check_precision(const CheckContext& ctx, Sink& sink);         // precision.cpp

}  // namespace tdx::integrity
