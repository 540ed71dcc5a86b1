#include "tritondx/source/host_summed_store.h"

#include <fmt/format.h>

#include <algorithm>

namespace tdx::l0 {

namespace {

constexpr const char* kAllocations[] = {"torch.zeros", "torch.empty", "torch.zeros_like", "torch.empty_like"};

const PyNode* enclosing_function(const PyNode& node) {
  for (const PyNode* p = node.parent; p; p = p->parent)
    if (p->type == "FunctionDef" || p->type == "AsyncFunctionDef") return p;
  return nullptr;
}

// `use` (a Name load of the buffer) as the whole argument of torch.sum(buffer) or the object of
// buffer.sum(), with no dimension, dtype or other argument: the Call, else nullptr.
const PyNode* full_sum(const PyNode& use) {
  const PyNode* p = use.parent;
  if (!p) return nullptr;
  if (p->type == "Call" && use.field == "args" && call_name(*p) == "torch.sum" &&
      p->children_in("args").size() == 1 && p->children_in("keywords").empty())
    return p;
  if (p->type == "Attribute" && use.field == "value" && p->str_field("attr") == "sum" && p->parent &&
      p->parent->type == "Call" && p->field == "func" && p->parent->children_in("args").empty() &&
      p->parent->children_in("keywords").empty())
    return p->parent;
  return nullptr;
}

}  // namespace

std::vector<std::string> stored_params(const KernelView& view) {
  std::vector<std::string> out;
  for (const PyNode* store : view.stores()) {
    const PyNode* pointer = KernelView::pointer_arg(*store);
    std::string root = pointer ? view.root_pointer(*pointer) : "";
    if (!root.empty() && std::find(out.begin(), out.end(), root) == out.end()) out.push_back(root);
  }
  return out;
}

std::expected<HostSummedStore, std::string> host_summed_store(const KernelView& view, const std::string& param) {
  HostSummedStore out;
  out.param = param;
  auto memops = view.loads();
  for (const PyNode* w : view.writes()) memops.push_back(w);
  for (const PyNode* op : memops) {
    const PyNode* pointer = KernelView::pointer_arg(*op);
    if (!pointer || view.root_pointer(*pointer) != param) continue;
    if (normalize_triton_name(call_name(*op)) != "tl.store")
      return std::unexpected(fmt::format("line {}: the kernel also reads or updates `{}` ({})", op->line, param,
                                         call_name(*op)));
    if (out.store) return std::unexpected(fmt::format("line {}: a second store through `{}`", op->line, param));
    out.store = op;
  }
  if (!out.store) return std::unexpected(fmt::format("no tl.store through `{}`", param));
  const PyNode* stmt = PyModule::enclosing_statement(*out.store);
  if (!stmt || stmt->type != "Expr") return std::unexpected(fmt::format("line {}: the store is not a statement of its own", out.store->line));
  const auto elements = view.elements(*out.store);
  bool in_loop = false;
  for (const PyNode* p = stmt->parent; p && p != &view.function(); p = p->parent) in_loop |= p->type == "For" || p->type == "While";
  out.per_element = in_loop || (elements && *elements > 1);

  out.launch_call = view.launch_call();
  if (!out.launch_call) return std::unexpected("the launch call is not in the task's source");
  out.launch_function = enclosing_function(*out.launch_call);
  if (!out.launch_function) return std::unexpected("the launch is not written in a function");
  const PyNode* passed = bound_argument(*out.launch_call, &view.function(), param);
  if (!passed || passed->type != "Name")
    return std::unexpected(fmt::format("line {}: the launch does not pass a local name for `{}`", out.launch_call->line, param));
  out.buffer = passed->str_field("id");
  const PyNode* launch_stmt = PyModule::enclosing_statement(*out.launch_call);
  if (!launch_stmt) return std::unexpected("the launch call is not a statement");

  // Its bindings: the allocation before the launch, and at most one after it that rebinds the
  // name to the sum itself (`loss = torch.sum(loss)`, as Liger writes it).
  const PyNode* rebinding = nullptr;
  std::string problem;
  PyModule::walk(*out.launch_function, [&](const PyNode& n) {
    if (!problem.empty()) return;
    if ((n.type == "AugAssign" || n.type == "AnnAssign" || n.type == "For") && n.child("target") &&
        n.child("target")->type == "Name" && n.child("target")->str_field("id") == out.buffer) {
      problem = fmt::format("line {}: `{}` is updated or rebound", n.line, out.buffer);
      return;
    }
    if (n.type != "Name" || n.str_field("id") != out.buffer || n.fields.value("ctx", "") != "Store") return;
    const PyNode* stmt = n.parent;
    if (!stmt || stmt->type != "Assign" || n.field != "targets" || stmt->children_in("targets").size() != 1) {
      problem = fmt::format("line {}: `{}` is bound other than by `{} = ...`", n.line, out.buffer, out.buffer);
    } else if (stmt->line < launch_stmt->line) {
      if (out.allocation) problem = fmt::format("line {}: `{}` is assigned twice before the launch", n.line, out.buffer);
      out.allocation = stmt;
    } else if (!rebinding) {
      rebinding = stmt;
    } else {
      problem = fmt::format("line {}: `{}` is rebound twice after the launch", n.line, out.buffer);
    }
  });
  if (!problem.empty()) return std::unexpected(problem);
  const PyNode* value = out.allocation ? out.allocation->child("value") : nullptr;
  const std::string alloc = value && value->type == "Call" ? call_name(*value) : "";
  if (std::find(std::begin(kAllocations), std::end(kAllocations), alloc) == std::end(kAllocations))
    return std::unexpected(fmt::format("`{}` is not one fresh torch.zeros/empty(_like) tensor of {}()", out.buffer,
                                       out.launch_function->str_field("name")));

  // Its uses up to the rebinding: inside the launch call, then one full sum after the launch.
  const int horizon = rebinding ? rebinding->end_line : out.launch_function->end_line;
  PyModule::walk(*out.launch_function, [&](const PyNode& n) {
    if (n.type != "Name" || n.str_field("id") != out.buffer || n.fields.value("ctx", "") != "Load" || !problem.empty())
      return;
    if (PyModule::inside(n, *out.launch_call) || n.line > horizon) return;
    if (const PyNode* s = full_sum(n); s && n.line > launch_stmt->end_line && !out.sum &&
                                       (!rebinding || PyModule::inside(*s, *rebinding))) {
      out.sum = s;
      return;
    }
    problem = fmt::format("line {}: `{}` is used other than by one full sum after the launch", n.line, out.buffer);
  });
  if (!problem.empty()) return std::unexpected(problem);
  if (!out.sum) return std::unexpected(fmt::format("the launch function never sums `{}`", out.buffer));
  if (rebinding && rebinding->child("value") != out.sum)
    return std::unexpected(fmt::format("line {}: `{}` is rebound to other than its sum", rebinding->line, out.buffer));
  return out;
}

}  // namespace tdx::l0
