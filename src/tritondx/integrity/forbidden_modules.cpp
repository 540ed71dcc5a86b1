// Names a candidate must not reach for, by family: other GPU compute stacks
// (integrity-forbidden-module), threads and processes (integrity-threads), frame and
// heap introspection (integrity-introspection), files and sockets (integrity-io), code built
// at run time (integrity-dynamic-code). A name the original imports or uses is allowed.
#include <set>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

struct Family {
  std::string_view prefix;  // a module or a dotted name; matches itself and what lies under it
  std::string_view id;
  std::string_view why;
};

constexpr Family kFamilies[] = {
    {"_thread", "integrity-threads", "threads"},
    {"asyncio", "integrity-threads", "asynchronous tasks"},
    {"builtins", "integrity-introspection", "patching builtins"},
    {"cffi", "integrity-forbidden-module", "native code"},
    {"concurrent", "integrity-threads", "thread/process pools"},
    {"ctypes", "integrity-forbidden-module", "native code through ctypes"},
    {"cuda", "integrity-forbidden-module", "CUDA through cuda-python"},
    {"cupy", "integrity-forbidden-module", "CuPy compute"},
    {"gc", "integrity-introspection", "the garbage collector (finding the harness's tensors)"},
    {"http", "integrity-io", "network I/O"},
    {"importlib", "integrity-dynamic-code", "imports by computed name"},
    {"inspect", "integrity-introspection", "frame introspection"},
    {"jax", "integrity-forbidden-module", "JAX compute"},
    {"mmap", "integrity-io", "memory-mapped files"},
    {"multiprocessing", "integrity-threads", "processes"},
    {"numba", "integrity-forbidden-module", "Numba kernels"},
    {"os.exec", "integrity-threads", "running other programs"},
    {"os.fork", "integrity-threads", "processes"},
    {"os.popen", "integrity-threads", "running other programs"},
    {"os.spawn", "integrity-threads", "running other programs"},
    {"os.system", "integrity-threads", "running other programs"},
    {"pathlib", "integrity-io", "file I/O"},
    {"pickle", "integrity-io", "reading/writing saved objects"},
    {"pycuda", "integrity-forbidden-module", "PyCUDA kernels"},
    {"requests", "integrity-io", "network I/O"},
    {"shelve", "integrity-io", "reading/writing saved objects"},
    {"shutil", "integrity-io", "file I/O"},
    {"socket", "integrity-io", "network I/O"},
    {"sqlite3", "integrity-io", "database I/O"},
    {"subprocess", "integrity-threads", "running other programs"},
    {"sys._current_frames", "integrity-introspection", "frame introspection"},
    {"sys._getframe", "integrity-introspection", "frame introspection"},
    {"sys.modules", "integrity-introspection", "reaching into other modules (the harness)"},
    {"sys.setprofile", "integrity-introspection", "tracing the harness"},
    {"sys.settrace", "integrity-introspection", "tracing the harness"},
    {"tempfile", "integrity-io", "file I/O"},
    {"tensorflow", "integrity-forbidden-module", "TensorFlow compute"},
    {"threading", "integrity-threads", "threads"},
    {"torch._inductor", "integrity-forbidden-module", "Inductor-generated kernels"},
    {"torch.utils.cpp_extension", "integrity-forbidden-module", "C++/CUDA extensions"},
    {"traceback", "integrity-introspection", "frame introspection"},
    {"urllib", "integrity-io", "network I/O"},
};

// Builtins by family.
constexpr std::pair<std::string_view, std::string_view> kBuiltins[] = {
    {"__import__", "integrity-dynamic-code"}, {"compile", "integrity-dynamic-code"},
    {"eval", "integrity-dynamic-code"},       {"exec", "integrity-dynamic-code"},
    {"globals", "integrity-dynamic-code"},    {"locals", "integrity-dynamic-code"},
    {"open", "integrity-io"},                 {"vars", "integrity-dynamic-code"},
};

const Family* family_of(std::string_view name) {
  for (const auto& f : kFamilies)
    if (name == f.prefix || (name.starts_with(f.prefix) && (name[f.prefix.size()] == '.' ||
                                                          f.prefix.starts_with("os.")))) return &f;
  return nullptr;
}

// Every full name the module imports or uses (resolved chains) with its line.
std::vector<std::pair<std::string, int>> names_used(const ModuleFacts& facts, bool host_only) {
  std::vector<std::pair<std::string, int>> out = facts.imports();
  auto visit = [&](const PyNode& n) {
    if (ModuleFacts::is_chain_top(n)) {
      std::string name = facts.resolve(n);
      if (!name.empty()) out.emplace_back(name, n.line);
    }
  };
  if (host_only) facts.walk_host(visit);
  else PyModule::walk(facts.module().root(), visit);
  return out;
}

bool is_builtin_use(const ModuleFacts& facts, const PyNode& n, std::string_view name) {
  return n.type == "Name" && n.str_field("id") == name && !facts.is_import_alias(name) &&
         !facts.globals().contains(std::string(name)) && !facts.function(name);
}

}  // namespace

void check_modules(const CheckContext& ctx, Sink& sink) {
  std::set<std::string> original;
  for (const auto& [name, line] : names_used(ctx.original, false)) original.insert(name);
  for (const auto& [name, line] : names_used(ctx.candidate, false)) {
    const Family* f = family_of(name);
    if (!f || original.contains(name)) continue;
    sink.report(f->id, line, fmt::format("the candidate uses `{}` ({})", name, f->why));
  }

  ctx.candidate.walk_host([&](const PyNode& n) {
    for (const auto& [builtin, id] : kBuiltins)
      if (is_builtin_use(ctx.candidate, n, builtin) && n.fields.value("ctx", "") == "Load")
        sink.report(id, n.line, fmt::format("host code calls the builtin `{}`", builtin));
    // getattr/setattr/delattr/hasattr with a computed attribute name hide what is used.
    if (n.type == "Call") {
      const PyNode* func = n.child("func");
      std::string fname = func && func->type == "Name" ? func->str_field("id") : std::string();
      if (fname == "getattr" || fname == "setattr" || fname == "delattr") {
        const PyNode* attr = argument(n, 1);
        if (!attr || attr->type != "Constant")
          sink.report("integrity-dynamic-code", n.line,
                      fmt::format("{}() with a computed attribute name hides which function is used", fname));
      }
    }
    if (n.type == "Attribute" && (n.str_field("attr") == "__dict__" || n.str_field("attr") == "__globals__" ||
                                  n.str_field("attr") == "__code__" || n.str_field("attr") == "__builtins__"))
      sink.report("integrity-dynamic-code", n.line,
                  fmt::format("host code reaches into `{}`", n.str_field("attr")));
  });
}

}  // namespace tdx::integrity
