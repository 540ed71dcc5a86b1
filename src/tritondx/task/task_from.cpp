#include "tritondx/task/task_from.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "tritondx/pyast/py_ast.h"

namespace tdx {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 3> kGeneratedFunctions{"launch", "make_inputs", "bytes_moved"};

// A folder of scratch files, removed with everything in it when it goes out of scope.
class ScratchDir {
 public:
  ScratchDir()
      : path_(fs::temp_directory_path() / fmt::format("tritondx-task-from-{}", static_cast<long>(::getpid()))) {
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A file removed when it goes out of scope unless it was kept.
class StagedFile {
 public:
  explicit StagedFile(fs::path path) : path_(std::move(path)) {}
  ~StagedFile() {
    std::error_code ec;
    if (!kept_) fs::remove(path_, ec);
  }
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  const fs::path& path() const { return path_; }
  void keep() { kept_ = true; }

 private:
  fs::path path_;
  bool kept_ = false;
};

std::unexpected<Diagnostic> fail_task(std::string message, const std::string& file = {}, int line = 0) {
  return fail(Stage::Task, std::move(message), line, file);
}

bool write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

Expected<std::string> read_kernel_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return fail_task("kernel file not found", path.string());
  if (!fs::is_regular_file(path, ec)) return fail_task("the kernel file is not a regular file", path.string());
  if (path.extension() != ".py")
    return fail_task("not a Python file (.py): task-from reads a Python module with @triton.jit kernels and the "
                     "wrapper that launches them",
                     path.string());
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return fail_task("cannot read the kernel file", path.string());
  return text.str();
}

Expected<fs::path> output_path(const TaskFromOptions& o, const fs::path& source) {
  fs::path out = o.out.empty() ? source.parent_path() / (source.stem().string() + ".task.py")
                               : fs::absolute(o.out).lexically_normal();
  std::error_code ec;
  if (out.extension() != ".py") return fail_task("the task file must end in .py: " + out.string());
  if (fs::exists(out, ec) && fs::equivalent(out, source, ec))
    return fail_task("the task file would overwrite the kernel file; choose another --out", out.string());
  if (!fs::is_directory(out.parent_path(), ec)) return fail_task("no such folder: " + out.parent_path().string());
  if (fs::exists(out, ec) && !o.force)
    return fail_task("the task file exists already; pass --force to overwrite it", out.string());
  return out;
}

// The Python AST of `text` through the bridge (parsed, not run). A syntax error keeps its
// line and column; `as_file` names the file the error is reported against.
Expected<PyModule> parse_python(const Bridge& bridge, const fs::path& scratch, const std::string& text,
                                const std::string& as_file) {
  if (!write_file(scratch, text)) return fail_task("cannot write " + scratch.string());
  auto reply = bridge.call("ast", {{"task", scratch.string()}, {"parse_only", true}});
  if (!reply) {
    Diagnostic d = reply.error().diagnostic;
    d.file = as_file;
    return std::unexpected(d);
  }
  return PyModule::from_json(reply->value("module", nlohmann::json::object()));
}

bool is_jit_decorator(const PyNode& decorator) {
  std::string name = decorator.type == "Call" ? call_name(decorator) : dotted_name(decorator);
  return name == "jit" || name.ends_with(".jit");
}

// The top-level functions of the kernel file, and which of them are @triton.jit kernels.
struct KernelFileFunctions {
  std::vector<std::string> functions;  // in file order
  std::set<std::string> kernels;
  std::vector<std::string> defined_generated;  // launch / make_inputs / bytes_moved defined at top level
};

KernelFileFunctions top_level_functions(const PyModule& module) {
  KernelFileFunctions out;
  for (const auto& node : module.root().children) {
    std::vector<std::string> names;
    if (node.type == "FunctionDef" || node.type == "AsyncFunctionDef" || node.type == "ClassDef") {
      names.push_back(node.str_field("name"));
      if (node.type != "ClassDef") out.functions.push_back(names.back());
      for (const auto* decorator : node.children_in("decorator_list"))
        if (node.type != "ClassDef" && is_jit_decorator(*decorator)) out.kernels.insert(names.back());
    } else if (node.type == "Assign" || node.type == "AnnAssign") {
      auto written = PyModule::names_written(node);
      names.assign(written.begin(), written.end());
    }
    for (const auto& name : names)
      if (std::ranges::find(kGeneratedFunctions, name) != kGeneratedFunctions.end() &&
          std::ranges::find(out.defined_generated, name) == out.defined_generated.end())
        out.defined_generated.push_back(name);
  }
  return out;
}

std::string name_list(const std::vector<std::string>& names) {
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

std::string call_error(const TaskFromOptions& o, int column, const std::string& message) {
  return fmt::format("--call{}: {}\n{}", column > 0 ? fmt::format(", column {}", column) : "", message,
                     column > 0 ? caret_excerpt(o.call, column) : "    " + o.call);
}

// Checks that --call is one call of a wrapper of the file that uses every declared input.
Expected<void> check_call(const Bridge& bridge, const fs::path& scratch, const TaskFromOptions& o,
                          const std::string& where, const KernelFileFunctions& file,
                          const std::vector<InputSpec>& inputs) {
  // Python rejects an indented first line; columns below count from the call as given.
  const int indent = static_cast<int>(std::min(o.call.find_first_not_of(" \t"), o.call.size()));
  auto parsed = parse_python(bridge, scratch, o.call.substr(static_cast<size_t>(indent)) + "\n", "");
  if (!parsed) {
    int column = parsed.error().line <= 1 && parsed.error().col > 0 ? parsed.error().col + indent : 0;
    return fail_task(call_error(o, column, "not a Python expression: " + parsed.error().message));
  }
  const auto statements = parsed->root().children_in("body");
  const PyNode* call =
      statements.size() == 1 && statements[0]->type == "Expr" ? statements[0]->child("value") : nullptr;
  if (!call || call->type != "Call")
    return fail_task(call_error(o, 0, "must be one call of the file's wrapper function, like "
                                      "`rms_norm(x, w, eps=1e-6)`"));
  const PyNode* callee = call->child("func");
  const int callee_column = callee && callee->line == 1 ? callee->col + indent : 0;
  const std::string functions = name_list(file.functions);
  if (!callee || callee->type != "Name")
    return fail_task(call_error(o, callee_column, fmt::format("call a function of {} by its name (its top-level "
                                                              "functions: {})",
                                                              where, functions)));
  const std::string name = callee->str_field("id");
  if (std::ranges::find(file.functions, name) == file.functions.end())
    return fail_task(call_error(o, callee_column, fmt::format("'{}' is not a top-level function of {} (its top-level "
                                                              "functions: {})",
                                                              name, where, functions)));
  if (file.kernels.contains(name)) {
    std::vector<std::string> wrappers;
    for (const auto& f : file.functions)
      if (!file.kernels.contains(f)) wrappers.push_back(f);
    return fail_task(call_error(o, callee_column, fmt::format("'{}' is a @triton.jit kernel; call the Python wrapper "
                                                              "that launches it (the file's other functions: {})",
                                                              name, name_list(wrappers))));
  }
  std::set<std::string> used;
  for (const auto& arg : call->children)
    if (&arg != callee) used.merge(PyModule::names_read(arg));
  for (const auto& input : inputs) {
    if (input.name == name)
      return fail_task(fmt::format("--inputs, column {}: input '{}' has the name of the function --call calls\n{}",
                                   input.column, input.name, caret_excerpt(o.inputs, input.column)));
    if (!used.contains(input.name))
      return fail_task(fmt::format("--inputs, column {}: input '{}' is declared but --call does not use it\n{}",
                                   input.column, input.name, caret_excerpt(o.inputs, input.column)));
  }
  return {};
}

// A capture failure on the staged task, told against the kernel file where the line is its text.
Diagnostic located_in_kernel_file(Diagnostic d, const std::string& staged, const TaskText& text) {
  if (d.file != staged) return d;
  int header_lines = static_cast<int>(std::ranges::count(render_task_header(text), '\n'));
  int line = d.line - header_lines;
  d.file = text.source_path;
  if (line >= 1 && line <= text.kernel_file.kept_lines) {
    d.line = line;
  } else {
    d.line = 0;
    d.col = 0;
    d.message += fmt::format(" (in the generated launch(), which returns {})", text.call);
  }
  d.message = "the generated task fails: " + d.message;
  return d;
}

std::string describe_outputs(const nlohmann::json& outputs) {
  std::vector<std::string> tensors;
  for (const auto& o : outputs)
    if (o.value("kind", "") == "tensor") {
      auto shape = o.value("shape", std::vector<long long>{});
      tensors.push_back(
          fmt::format("{} ({}{})", o.value("dtype", "?"), fmt::join(shape, ", "), shape.size() == 1 ? "," : ""));
    }
  if (tensors.empty()) return "none: launch() returns no tensor, so no output bytes are counted";
  return fmt::format("{}", fmt::join(tensors, ", "));
}

std::vector<CapturedLaunch> group_launches(const nlohmann::json& launches) {
  std::vector<CapturedLaunch> out;
  for (const auto& l : launches) {
    CapturedLaunch launch{l.value("kernel", ""), l.value("grid", std::vector<long long>{}), 1};
    auto same = std::ranges::find_if(
        out, [&](const CapturedLaunch& c) { return c.kernel == launch.kernel && c.grid == launch.grid; });
    if (same != out.end()) ++same->count;
    else out.push_back(std::move(launch));
  }
  return out;
}

}  // namespace

Expected<TaskFromResult> make_task_from(const Bridge& bridge, const TaskFromOptions& o) {
  const fs::path source = fs::absolute(o.file).lexically_normal();
  const std::string source_text = TDX_TRY(read_kernel_file(source));
  auto inputs = parse_input_specs(o.inputs);
  if (!inputs)
    return fail_task(fmt::format("--inputs, column {}: {}\n{}", inputs.error().column, inputs.error().message,
                                 caret_excerpt(o.inputs, inputs.error().column)));
  const fs::path out = TDX_TRY(output_path(o, source));

  TaskText text{task_from_command_line(o), source.string(), split_at_test_separator(source_text), *inputs, o.call,
                0, ""};
  ScratchDir scratch;
  const PyModule module = TDX_TRY(parse_python(bridge, scratch.path() / "kernel_file.py", text.kernel_file.kept,
                                               source.string()));
  const KernelFileFunctions functions = top_level_functions(module);
  if (!functions.defined_generated.empty())
    return fail_task(fmt::format("the file already defines {} at top level: it looks like a task already (run "
                                 "`tritondx diagnose` on it), or rename them",
                                 fmt::join(functions.defined_generated, ", ")),
                     source.string());
  if (functions.kernels.empty())
    return fail_task(text.kernel_file.has_separator
                         ? "no @triton.jit kernel before the `####` separator line: task-from needs the kernels and "
                           "the wrapper that launches them"
                         : "no @triton.jit kernel in the file: task-from needs the kernels and the wrapper that "
                           "launches them",
                     source.string());
  const std::string where =
      source.string() + (text.kernel_file.has_separator ? " before its `####` separator line" : "");
  if (auto checked = check_call(bridge, scratch.path() / "call.py", o, where, functions, *inputs); !checked)
    return std::unexpected(checked.error());

  // Stage the task next to where it goes (its folder is on sys.path when it is imported), capture
  // it with no output bytes yet, then write it again with the outputs capture measured.
  StagedFile staged(out.parent_path() /
                    fmt::format(".{}.{}.staging.py", out.stem().string(), static_cast<long>(::getpid())));
  if (!write_file(staged.path(), render_task(text))) return fail_task("cannot write " + staged.path().string());
  auto reply = bridge.call("capture", {{"task", staged.path().string()}});
  if (!reply) return std::unexpected(located_in_kernel_file(reply.error().diagnostic, staged.path().string(), text));
  if (!reply->contains("outputs"))
    return fail(Stage::Bridge, "the bridge's capture reply has no \"outputs\" (an older tritondx_bridge?)");

  std::set<std::string> own_kernels;
  for (const auto& k : reply->value("task_info", nlohmann::json::object()).value("kernels", nlohmann::json::array()))
    own_kernels.insert(k.value("name", ""));
  auto launches = group_launches(reply->value("launches", nlohmann::json::array()));
  if (std::ranges::none_of(launches, [&](const CapturedLaunch& l) { return own_kernels.contains(l.kernel); })) {
    std::vector<std::string> names;
    for (const auto& l : launches) names.push_back(l.kernel);
    return fail_task(fmt::format("{} launches only kernels defined elsewhere ({}), none of the file's", text.call,
                                 fmt::join(names, ", ")),
                     source.string());
  }
  for (const auto& output : (*reply)["outputs"]) text.output_bytes += output.value("bytes", 0LL);
  text.outputs_described = describe_outputs((*reply)["outputs"]);

  if (!write_file(staged.path(), render_task(text))) return fail_task("cannot write " + staged.path().string());
  std::error_code ec;
  fs::rename(staged.path(), out, ec);
  if (ec) return fail_task(fmt::format("cannot write the task file: {}", ec.message()), out.string());
  staged.keep();
  return TaskFromResult{out.string(), source.string(), text.kernel_file, std::move(launches), text.output_bytes,
                        text.outputs_described};
}

}  // namespace tdx
