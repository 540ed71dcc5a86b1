// The driver: the check catalogue, loading task sources through the bridge, and running every
// static check family on a candidate against its original.
#include <algorithm>
#include <set>
#include <tuple>

#include "tritondx/core/text.h"
#include "tritondx/integrity/check_context.h"
#include "tritondx/task/task.h"

namespace tdx::integrity {

namespace {

constexpr CheckInfo kChecks[] = {
    {"integrity-dynamic-code", CheckKind::Static,
     "eval/exec/compile/__import__/importlib/globals()/vars(), getattr/setattr with a computed name, "
     "__dict__/__globals__: code or names chosen at run time hide what the candidate calls"},
    {"integrity-env-write", CheckKind::Both,
     "writes to os.environ (os.environ[k] = v, update, setdefault, pop, putenv, unsetenv); at run time: "
     "environment variables that differ after the call"},
    {"integrity-fallback", CheckKind::Static,
     "try/except (or contextlib.suppress) in host code: a fallback path that hides a failing kernel"},
    {"integrity-forbidden-module", CheckKind::Static,
     "other compute stacks: ctypes, cffi, cupy, numba, pycuda, cuda-python, jax, tensorflow, "
     "torch.utils.cpp_extension, torch._inductor"},
    {"integrity-foreign-kernel", CheckKind::Runtime,
     "a GPU kernel during launch() that is neither a Triton kernel of the module nor a memset/memcpy "
     "(nor a kernel the original launch also ran); torch.profiler, GPU only"},
    {"integrity-input-modified", CheckKind::Runtime, "launch() changed one of its inputs"},
    {"integrity-introspection", CheckKind::Static,
     "gc, inspect, traceback, builtins, sys._getframe, sys.modules, settrace/setprofile: reaching the harness"},
    {"integrity-io", CheckKind::Static, "file and network I/O: open(), pathlib, pickle, socket, urllib, ..."},
    {"integrity-kernel-not-launched", CheckKind::Both,
     "launch() (and the helpers it calls) launches none of the module's @triton.jit kernels"},
    {"integrity-no-jit-kernel", CheckKind::Static, "the candidate defines no @triton.jit kernel"},
    {"integrity-output-alias", CheckKind::Runtime,
     "an output shares memory with an input, where the original's does not"},
    {"integrity-output-cache", CheckKind::Both,
     "state kept across calls: globals, mutated module containers, memoizing decorators, keys from "
     "data_ptr()/id()/_version; at run time: a stale result after the inputs change in place, or the same "
     "output storage returned twice"},
    {"integrity-precision-downgrade", CheckKind::Both,
     "casts to fp16/bf16/fp8 or tf32 dots beyond what the tolerance allows (static rule); at run time: "
     "float64 error more than 2x the original's plus atol"},
    {"integrity-reads-reference", CheckKind::Both, "the candidate calls or names `reference`"},
    {"integrity-reference-changed", CheckKind::Static,
     "reference, make_inputs, flops, bytes_moved, TOLERANCE or the constants they read differ from the "
     "original, or are rebound"},
    {"integrity-side-stream", CheckKind::Both,
     "streams and CUDA graphs (torch.cuda.Stream/stream/graph/CUDAGraph, wait_stream, record_stream); at run "
     "time (GPU): a kernel on another stream than the caller's"},
    {"integrity-signature-changed", CheckKind::Static, "launch() is missing or takes different parameters"},
    {"integrity-tensor-subclass", CheckKind::Static,
     "tensor subclasses, __torch_function__/__torch_dispatch__: lazy or fake outputs"},
    {"integrity-threads", CheckKind::Static,
     "threads, processes and other programs: threading, multiprocessing, concurrent, subprocess, asyncio, "
     "os.fork/system/popen/exec*/spawn*"},
    {"integrity-timer-patch", CheckKind::Both,
     "assigning attributes of torch/triton/time/sys/os/builtins/math/functools (timers, events, do_bench); "
     "at run time: timer, event and comparison functions replaced during the call"},
    {"integrity-torch-compute", CheckKind::Both,
     "PyTorch compute in host code (torch.* beyond allocation/views/metadata, torch.nn.functional, "
     "torch.ops, torch.compile, tensor compute methods, @) unless the original's launch does the same; "
     "at run time: aten ops beyond allocation/view/copy ops and the original's"},
    {"integrity-uninitialized-read", CheckKind::Runtime,
     "outputs depend on what freshly allocated memory held (empty* results poisoned with NaN, then 1e30)"},
    {"integrity-unverified", CheckKind::Runtime,
     "the runtime checks could not run on the candidate (the `run` reply's integrity.error): not verified, "
     "so not accepted"},
};

}  // namespace

void to_json(nlohmann::json& j, const Violation& v) {
  j = nlohmann::json{{"id", v.id}, {"line", v.line}, {"message", v.message}};
}

void from_json(const nlohmann::json& j, Violation& v) {
  v.id = j.value("id", "");
  v.line = j.value("line", 0);
  v.message = j.value("message", "");
}

std::span<const CheckInfo> checks() { return kChecks; }

const CheckInfo* find_check(std::string_view id) {
  for (const auto& c : kChecks)
    if (c.id == id) return &c;
  return nullptr;
}

TaskSource task_source_from_ast_reply(const nlohmann::json& reply) {
  TaskSource t;
  t.path = reply.value("path", "");
  t.source = reply.value("source", "");
  t.lines = split_lines(t.source);
  t.module = PyModule::from_json(reply.value("module", nlohmann::json::object()));
  return t;
}

Expected<TaskSource> load_task_source(const Bridge& bridge, const std::string& path) {
  auto reply = bridge.call("ast", {{"task", path}, {"parse_only", true}});
  if (!reply) return std::unexpected(reply.error().diagnostic);
  return task_source_from_ast_reply(*reply);
}

namespace {

std::vector<Violation> run_checks(const ModuleFacts& orig, const ModuleFacts& cand) {
  CheckContext ctx{orig, cand};
  std::vector<Violation> out;
  Sink sink(out);
  // Does it still launch its own kernel, through the same entry point?
  check_kernel_launch(ctx, sink);
  // Are the yardsticks (reference, inputs, tolerance, counts) untouched and unread?
  check_fixed_parts(ctx, sink);
  // Does host code compute with PyTorch or another stack?
  check_torch_compute(ctx, sink);
  check_modules(ctx, sink);
  // Does it fall back, juggle streams, patch timers or the environment?
  check_control_and_state(ctx, sink);
  // Does it remember results across calls?
  check_output_cache(ctx, sink);
  // Does it compute in a weaker format than the tolerance allows?
  check_precision(ctx, sink);
  return out;
}

// What a violation is about, independent of where the line moved: its check, its message, the
// source line and the line after it (a moved decorator decorates another function).
std::tuple<std::string, std::string, std::string, std::string> construct(const TaskSource& task, const Violation& v) {
  auto line = [&](int n) { return n >= 1 && n <= static_cast<int>(task.lines.size()) ? trim_copy(task.lines[n - 1]) : ""; };
  return {v.id, v.message, line(v.line), line(v.line + 1)};
}

}  // namespace

std::vector<Violation> check_static(const TaskSource& original, const TaskSource& candidate) {
  ModuleFacts orig(original), cand(candidate);
  // A construct the original already has (a library's lru_cache'd helper, a getattr on a dtype
  // name) is the user's code, not something the rewrite introduced: only new ones count.
  std::multiset<std::tuple<std::string, std::string, std::string, std::string>> inherited;
  for (const Violation& v : run_checks(orig, orig)) inherited.insert(construct(original, v));
  std::vector<Violation> out;
  for (Violation& v : run_checks(orig, cand)) {
    if (auto it = inherited.find(construct(candidate, v)); it != inherited.end()) {
      inherited.erase(it);
      continue;
    }
    out.push_back(std::move(v));
  }
  std::ranges::sort(out, [](const Violation& a, const Violation& b) {
    return std::tie(a.line, a.id) < std::tie(b.line, b.id);
  });
  return out;
}

Expected<std::vector<Violation>> check_static_files(const Bridge& bridge, const std::string& original_path,
                                                   const std::string& candidate_path) {
  auto original = load_task_source(bridge, original_path);
  if (!original) return std::unexpected(original.error());
  auto candidate = load_task_source(bridge, candidate_path);
  if (!candidate) return std::unexpected(candidate.error());
  return check_static(*original, *candidate);
}

std::vector<Violation> runtime_violations(const nlohmann::json& run_reply) {
  std::vector<Violation> out;
  auto it = run_reply.find("integrity");
  if (it == run_reply.end() || !it->is_object()) return out;
  for (const auto& v : it->value("violations", nlohmann::json::array())) out.push_back(v.get<Violation>());
  if (auto error = it->find("error"); error != it->end() && error->is_string())
    out.push_back({"integrity-unverified", 0, error->get<std::string>()});
  return out;
}

}  // namespace tdx::integrity
