// integrity-no-jit-kernel, integrity-kernel-not-launched, integrity-signature-changed:
// the candidate keeps the entry point and still launches a Triton kernel of its own
// (kernel_uses.cpp finds the launches in the code launch() reaches).
#include "tritondx/integrity/check_context.h"
#include "tritondx/integrity/kernel_uses.h"

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

  // A kernel handed to an imported function counts: the check cannot see whether it launches it.
  if (!cand.kernels().empty() && kernel_uses(cand, cand.launch_reachable()).empty())
    sink.report("integrity-kernel-not-launched", launch->line,
                "launch() (and the code it reaches: helpers, lambdas, methods of the classes it names) never "
                "launches one of the module's @triton.jit kernels (kernel[grid](...), kernel.run(...)), nor hands "
                "one to a helper that does or to an imported function");
}

}  // namespace tdx::integrity
