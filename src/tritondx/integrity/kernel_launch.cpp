// integrity-no-jit-kernel, integrity-kernel-not-launched, integrity-signature-changed:
// the candidate keeps the entry point and still launches a Triton kernel of its own.
#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

// "args:x,y;vararg:;kwonlyargs:;kwarg:;defaults:..." for a FunctionDef (annotations ignored).
std::string signature_of(const PyNode& fn) {
  const PyNode* args = fn.child("args");
  if (!args) return {};
  std::string out = fn.type + ":";
  for (std::string_view field : {"posonlyargs", "args", "vararg", "kwonlyargs", "kwarg"}) {
    out += std::string(field) + "=";
    for (const auto* a : args->children_in(field)) out += a->str_field("arg") + ",";
    out += ";";
  }
  for (std::string_view field : {"defaults", "kw_defaults"}) {
    out += std::string(field) + "=";
    for (const auto* d : args->children_in(field)) out += canonical(*d) + ",";
    out += ";";
  }
  return out;
}

// kernel[grid](...) or kernel.run(...) with `kernel` one of the module's kernels.
bool launches_kernel(const ModuleFacts& facts, const PyNode& call) {
  const PyNode* func = call.child("func");
  if (!func) return false;
  if (func->type == "Subscript") {
    const PyNode* value = func->child("value");
    return value && value->type == "Name" && facts.is_kernel(value->str_field("id"));
  }
  if (func->type == "Attribute" && func->str_field("attr") == "run") {
    const PyNode* value = func->child("value");
    return value && value->type == "Name" && facts.is_kernel(value->str_field("id"));
  }
  return false;
}

}  // namespace

void check_kernel_launch(const CheckContext& ctx, Sink& sink) {
  const ModuleFacts& cand = ctx.candidate;
  if (cand.kernels().empty())
    sink.report("integrity-no-jit-kernel", 1, "the candidate defines no @triton.jit kernel");

  const PyNode* launch = cand.function("launch");
  const PyNode* orig_launch = ctx.original.function("launch");
  if (!launch) {
    sink.report("integrity-signature-changed", 1, "the candidate has no top-level `def launch`");
    return;
  }
  if (orig_launch && signature_of(*orig_launch) != signature_of(*launch))
    sink.report("integrity-signature-changed", launch->line,
                "launch() takes different parameters than the original's (names, order, defaults or kinds)");

  bool launched = false;
  for (const auto& name : cand.launch_reachable()) {
    const PyNode* fn = cand.function(name);
    if (!fn) continue;
    PyModule::walk(*fn, [&](const PyNode& n) {
      if (n.type == "Call" && launches_kernel(cand, n)) launched = true;
    });
  }
  if (!launched && !cand.kernels().empty())
    sink.report("integrity-kernel-not-launched", launch->line,
                "launch() (and the helpers it calls) never launches one of the module's @triton.jit kernels "
                "with kernel[grid](...)");
}

}  // namespace tdx::integrity
