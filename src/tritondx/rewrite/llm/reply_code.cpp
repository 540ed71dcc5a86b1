#include "tritondx/rewrite/llm/reply_code.h"
#include "tritondx/core/text.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace tdx {

namespace fs = std::filesystem;

namespace {

std::string temp_path(const std::string& stem) {
  static std::atomic<int> counter{0};
  fs::path dir = fs::temp_directory_path() / "tritondx-llm";
  std::error_code ec;
  fs::create_directories(dir, ec);
  return (dir / fmt::format("{}-{}-{}.py", stem, ::getpid(), counter++)).string();
}

constexpr const char* kStandIns =
    "\n\n# tritondx: stand-ins so that the reply's code loads as a task (never used)\n"
    "def reference(*args):\n"
    "    raise NotImplementedError\n\n\n"
    "def make_inputs(device):\n"
    "    raise NotImplementedError\n\n\n"
    "TOLERANCE = None\n";

// For a reply that leaves launch out ("functions you leave out stay as they are"): the original's
// launch is kept by the splice.
constexpr const char* kLaunchStandIn =
    "\n\ndef launch(*args):  # tritondx: stand-in, the original's launch is kept\n"
    "    raise NotImplementedError\n";

// A top-level statement of a reply that the splice never takes but that would run when the
// code is imported: a bare call (`launch(x)` under "the launch function remains the same") or an
// `if __name__ == "__main__":` demo.
bool runs_on_import(const PyNode& n) {
  if (n.type == "Expr") return n.child("value") && n.child("value")->type == "Call";
  if (n.type != "If" || !n.child("test")) return false;
  bool names_main = false;
  PyModule::walk(*n.child("test"), [&](const PyNode& x) { names_main |= x.type == "Name" && x.str_field("id") == "__name__"; });
  return names_main;
}

}  // namespace

std::expected<nlohmann::json, BridgeFailure> load_source_through_bridge(const Bridge& bridge, const std::string& source,
                                                                        const std::string& stem, bool parse_only) {
  std::string path = temp_path(stem);
  {
    std::ofstream out(path);
    out << source;
    if (!out)
      return std::unexpected(BridgeFailure{Diagnostic{Stage::Llm, path, 0, 0, "cannot write a temporary file"},
                                           "unwritable", {}});
  }
  nlohmann::json request{{"task", path}};
  if (parse_only) request["parse_only"] = true;
  auto reply = bridge.call("ast", request);
  std::error_code ec;
  fs::remove(path, ec);
  return reply;
}

Expected<ReplyCode> parse_reply_code(const Bridge& bridge, const std::string& code, const std::string& prelude) {
  ReplyCode out;
  // `from __future__` must come first: such a reply brings its own imports.
  const bool own_first = code.find("from __future__") != std::string::npos;
  const std::string head = own_first ? std::string() : prelude;
  out.code = head + code;
  out.first_line = static_cast<int>(split_lines(head).size()) + 1;
  auto lines = split_lines(code);
  out.code_lines = out.first_line - 1 + static_cast<int>(lines.size());
  // Statements that would run on import and that the splice ignores anyway are blanked (line
  // numbers kept) before the code is imported.
  if (auto parsed = load_source_through_bridge(bridge, out.code + kStandIns, "reply", /*parse_only=*/true)) {
    const PyModule module = PyModule::from_json(parsed->value("module", nlohmann::json::object()));
    std::vector<std::string> all = split_lines(out.code);
    for (const PyNode* n : module.root().children_in("body")) {
      if (n->line < out.first_line || n->end_line > out.code_lines || !runs_on_import(*n)) continue;
      out.not_run.push_back(fmt::format("`{}` at line {} (a statement that would run on import; not taken)",
                                        trim_copy(all[static_cast<size_t>(n->line - 1)]), n->line - out.first_line + 1));
      for (int l = n->line; l <= n->end_line; ++l) all[static_cast<size_t>(l - 1)].clear();
    }
    if (!out.not_run.empty()) {
      out.code.clear();
      for (const auto& l : all) out.code += l + "\n";
    }
  }
  auto reply = load_source_through_bridge(bridge, out.code + kStandIns, "reply");
  if (!reply && reply.error().kind == "missing-launch")
    reply = load_source_through_bridge(bridge, out.code + kStandIns + kLaunchStandIn, "reply");
  if (!reply) {
    const auto& f = reply.error();
    const int line = f.diagnostic.line - (out.first_line - 1);  // in the reply's own code
    std::string where;
    if (line > 0 && line <= static_cast<int>(lines.size()))
      where = fmt::format(" at line {} of its code: `{}`", line, trim_copy(lines[line - 1]));
    if (f.kind == "syntax-error") {
      std::string msg = f.diagnostic.message;
      if (msg.rfind("Python syntax error: ", 0) == 0) msg = msg.substr(21);
      return fail(Stage::Llm, fmt::format("the reply's code is not valid Python: {}{}", msg, where), std::max(line, 0));
    }
    if (f.kind == "no-jit-kernel") return fail(Stage::Llm, "not a kernel: the reply's code defines no @triton.jit function");
    if (f.kind == "import-error")
      return fail(Stage::Llm, fmt::format("the reply's code fails when imported: {}{}", f.diagnostic.message, where),
                  std::max(line, 0));
    return fail(Stage::Llm, fmt::format("the bridge could not load the reply's code ({}): {}", f.kind, f.diagnostic.message));
  }
  out.task = task_from_json(*reply);
  out.module = PyModule::from_json(reply->value("module", nlohmann::json::object()));
  return out;
}

}  // namespace tdx
