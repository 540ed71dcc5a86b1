// Tricks that work around the measurement rather than the kernel:
//   integrity-fallback        try/except in host code (a fallback path that hides failures), unless
//                             it only chooses between imports
//   integrity-side-stream     work on other streams or inside CUDA graphs
//   integrity-env-write       writes to os.environ (Triton/torch knobs, the harness's settings)
//   integrity-timer-patch     assignments to attributes of torch/time/triton/... (timers, events)
//   integrity-tensor-subclass tensor subclasses and dispatch hooks (lazy outputs)
#include <algorithm>
#include <set>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

constexpr std::string_view kStreamNames[] = {
    "torch.Stream", "torch.cuda.CUDAGraph", "torch.cuda.ExternalStream", "torch.cuda.Stream",
    "torch.cuda.graph", "torch.cuda.graphs", "torch.cuda.make_graphed_callables", "torch.cuda.stream",
    "torch.cuda.streams", "torch.cuda.set_stream", "torch.cuda.StreamContext",
};
constexpr std::string_view kStreamMethods[] = {"capture_begin", "capture_end", "record_stream", "replay",
                                               "wait_event", "wait_stream"};
// Modules whose attributes a candidate must not assign.
constexpr std::string_view kPatchedRoots[] = {"builtins", "functools", "math", "os", "sys", "time", "timeit",
                                              "torch", "triton"};

bool under(std::string_view name, std::string_view prefix) {
  return name == prefix || (name.starts_with(prefix) && name[prefix.size()] == '.');
}

std::string root_of(std::string_view name) { return std::string(name.substr(0, name.find('.'))); }

// A try/except around a kernel or a computation; not one that only chooses between imports
// (`try: from triton.language.extra.libdevice import rsqrt` / `except ModuleNotFoundError: ...`).
bool is_fallback_try(const PyNode& n) {
  if (n.type != "Try" && n.type != "TryStar") return false;
  auto body = n.children_in("body");
  return !std::ranges::all_of(body, [](const PyNode* s) { return s->type == "Import" || s->type == "ImportFrom"; });
}

bool count_try(const ModuleFacts& facts) {
  bool found = false;
  facts.walk_host([&](const PyNode& n) { found |= is_fallback_try(n); });
  return found;
}

}  // namespace

void check_control_and_state(const CheckContext& ctx, Sink& sink) {
  const ModuleFacts& cand = ctx.candidate;
  const bool original_tries = count_try(ctx.original);
  std::set<std::string> original_names;
  ctx.original.walk_host([&](const PyNode& n) {
    if (ModuleFacts::is_chain_top(n)) original_names.insert(ctx.original.resolve(n));
  });

  cand.walk_host([&](const PyNode& n) {
    if (is_fallback_try(n) && !original_tries)
      sink.report("integrity-fallback", n.line,
                  "host code catches exceptions: a fallback path can hide a failing kernel (let launch() raise)");

    if (ModuleFacts::is_chain_top(n)) {
      std::string name = cand.resolve(n);
      if (name == "contextlib.suppress" && !original_names.contains(name))
        sink.report("integrity-fallback", n.line, "contextlib.suppress hides exceptions (a silent fallback)");
      for (auto s : kStreamNames)
        if (under(name, s) && !original_names.contains(name))
          sink.report("integrity-side-stream", n.line,
                      fmt::format("`{}`: the candidate's work must run on the caller's current stream, outside "
                                  "CUDA graphs, so that the timer sees it",
                                  name));
      // Stores into attributes of library modules: time.perf_counter = ..., torch.cuda.Event.elapsed_time = ...
      if (n.type == "Attribute" && n.fields.value("ctx", "") != "Load") {
        std::string root = root_of(name);
        bool environ = under(name, "os.environ");
        if (environ)
          sink.report("integrity-env-write", n.line, fmt::format("host code assigns `{}`", name));
        else if (cand.is_import_alias(root_of(dotted_name(n))) &&
                 std::ranges::find(kPatchedRoots, root) != std::end(kPatchedRoots))
          sink.report("integrity-timer-patch", n.line,
                      fmt::format("host code assigns `{}`: patching torch/time/triton can fake timings or results",
                                  name));
      }
    }

    if (n.type == "Subscript" && n.fields.value("ctx", "") != "Load") {
      const PyNode* value = n.child("value");
      if (value && under(cand.resolve(*value), "os.environ"))
        sink.report("integrity-env-write", n.line, "host code writes os.environ[...]");
    }

    if (n.type == "Call") {
      std::string callee = cand.resolve_call(n);
      if (callee == "os.putenv" || callee == "os.unsetenv" ||
          (under(callee, "os.environ") && callee != "os.environ.get" && callee != "os.environ.copy" &&
           callee != "os.environ.items" && callee != "os.environ.keys" && callee != "os.environ.values"))
        sink.report("integrity-env-write", n.line, fmt::format("host code calls `{}`", callee));
      const PyNode* func = n.child("func");
      if (func && func->type == "Attribute" &&
          std::ranges::find(kStreamMethods, func->str_field("attr")) != std::end(kStreamMethods))
        sink.report("integrity-side-stream", n.line,
                    fmt::format("`.{}()`: stream or graph juggling in the candidate", func->str_field("attr")));
      if (func && func->type == "Name" && func->str_field("id") == "setattr") {
        const PyNode* target = argument(n, 0);
        std::string t = target ? cand.resolve(*target) : std::string();
        if (!t.empty() && cand.is_import_alias(root_of(dotted_name(*target))) &&
            std::ranges::find(kPatchedRoots, root_of(t)) != std::end(kPatchedRoots))
          sink.report(under(t, "os.environ") ? "integrity-env-write" : "integrity-timer-patch", n.line,
                      fmt::format("setattr() on `{}`", t));
      }
    }

    if (n.type == "ClassDef") {
      for (const auto* base : n.children_in("bases"))
        if (under(cand.resolve(*base), "torch.Tensor") || cand.resolve(*base).starts_with("torch.utils._python_dispatch"))
          sink.report("integrity-tensor-subclass", n.line,
                      "a tensor subclass or dispatch mode can return lazy outputs that compute when compared");
    }
    if (n.type == "FunctionDef" && (n.str_field("name") == "__torch_function__" ||
                                    n.str_field("name") == "__torch_dispatch__"))
      sink.report("integrity-tensor-subclass", n.line,
                  fmt::format("`{}` intercepts PyTorch calls (lazy or fake outputs)", n.str_field("name")));
  });
}

}  // namespace tdx::integrity
