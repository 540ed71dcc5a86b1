#include "tritondx/rewrite/llm/reply_code.h"
#include "tritondx/core/text.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace tdx {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A fence line: indentation, then 3+ backticks or tildes. Returns the fence run and the info string.
bool fence_line(const std::string& line, std::string& fence, std::string& info) {
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return false;
  char c = line[b];
  if (c != '`' && c != '~') return false;
  size_t e = b;
  while (e < line.size() && line[e] == c) ++e;
  if (e - b < 3) return false;
  fence = line.substr(b, e - b);
  info = trim_copy(std::string_view(line).substr(e));
  return true;
}

std::string dedent(const std::vector<std::string>& lines) {
  size_t common = std::string::npos;
  for (const auto& l : lines) {
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    common = std::min(common, b);
  }
  if (common == std::string::npos) common = 0;
  std::string out;
  for (const auto& l : lines) {
    std::string t = l;
    if (!t.empty() && t.back() == '\r') t.pop_back();
    out += (t.size() >= common ? t.substr(common) : trim_copy(t)) + "\n";
  }
  return out;
}

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

}  // namespace

Expected<std::vector<CodeBlock>> extract_code_blocks(const std::string& reply) {
  std::vector<CodeBlock> out;
  auto lines = split_lines(reply);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string fence, info;
    if (!fence_line(lines[i], fence, info)) continue;
    CodeBlock block;
    block.line = static_cast<int>(i) + 1;
    block.language = lower(info.substr(0, info.find_first_of(" \t{")));
    std::vector<std::string> body;
    bool closed = false;
    for (++i; i < lines.size(); ++i) {
      std::string f, rest;
      if (fence_line(lines[i], f, rest) && rest.empty() && f[0] == fence[0] && f.size() >= fence.size()) {
        closed = true;
        break;
      }
      body.push_back(lines[i]);
    }
    if (!closed)
      return fail(Stage::Llm, fmt::format("the reply's code block opened at line {} is never closed", block.line));
    block.code = dedent(body);
    out.push_back(std::move(block));
  }
  return out;
}

Expected<std::string> extract_python_code(const std::string& reply) {
  auto blocks = TDX_TRY(extract_code_blocks(reply));
  if (blocks.empty()) return fail(Stage::Llm, "no code block in the reply");
  auto is_python = [](const CodeBlock& b) { return b.language == "python" || b.language == "py" || b.language == "python3"; };
  std::string code;
  for (const auto& b : blocks)
    if (is_python(b)) code += (code.empty() ? "" : "\n\n") + b.code;
  if (code.empty())
    for (const auto& b : blocks)
      if (b.language.empty()) code += (code.empty() ? "" : "\n\n") + b.code;
  if (trim_copy(code).empty()) {
    std::string langs;
    for (const auto& b : blocks) langs += (langs.empty() ? "" : ", ") + (b.language.empty() ? "untagged" : b.language);
    return fail(Stage::Llm, fmt::format("no Python code block in the reply (found: {})", langs));
  }
  return code;
}

std::string reply_summary(const std::string& reply) {
  std::string prose;
  for (const auto& line : split_lines(reply)) {
    std::string f, info;
    if (fence_line(line, f, info)) break;
    std::string t = trim_copy(line);
    if (t.empty()) {
      if (!prose.empty()) break;
      continue;
    }
    prose += (prose.empty() ? "" : " ") + t;
  }
  while (!prose.empty() && (prose.front() == '#' || prose.front() == '*' || prose.front() == ' ')) prose.erase(0, 1);
  if (auto dot = prose.find(". "); dot != std::string::npos) prose = prose.substr(0, dot + 1);
  if (prose.size() > 200) prose = prose.substr(0, 197) + "...";
  return prose;
}

std::expected<nlohmann::json, BridgeFailure> load_source_through_bridge(const Bridge& bridge, const std::string& source,
                                                                        const std::string& stem) {
  std::string path = temp_path(stem);
  {
    std::ofstream out(path);
    out << source;
    if (!out)
      return std::unexpected(BridgeFailure{Diagnostic{Stage::Llm, path, 0, 0, "cannot write a temporary file"},
                                           "unwritable", {}});
  }
  auto reply = bridge.call("ast", nlohmann::json{{"task", path}});
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
  auto reply = load_source_through_bridge(bridge, out.code + kStandIns, "reply");
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
    if (f.kind == "missing-launch") return fail(Stage::Llm, "not a kernel: the reply's code defines no launch function");
    if (f.kind == "import-error")
      return fail(Stage::Llm, fmt::format("the reply's code fails when imported: {}{}", f.diagnostic.message, where),
                  std::max(line, 0));
    return fail(Stage::Llm, fmt::format("the bridge could not load the reply's code ({}): {}", f.kind, f.diagnostic.message));
  }
  out.task = task_from_json(*reply);
  out.module = PyModule::from_json(reply->value("module", nlohmann::json::object()));
  const PyNode* launch = out.module.function("launch");
  if (!launch || launch->line > out.code_lines || launch->line < out.first_line)
    return fail(Stage::Llm, "not a kernel: the reply's code defines no launch function");
  return out;
}

}  // namespace tdx
