#include "tritondx/rewrite/recipes/statement_util.h"

#include <fmt/format.h>

#include <algorithm>

#include "tritondx/source/kernel_view.h"

namespace tdx::stmt_util {

TextEdit replace_lines(int first, int last, std::string text) { return {first, 1, last + 1, 1, std::move(text)}; }

Expected<std::string> render_lines(const KernelContext& ctx, int first, int last, const std::vector<TextEdit>& subs,
                                   std::string_view from_indent, std::string_view to_indent) {
  const auto& lines = ctx.task->lines;
  if (first < 1 || last < first || static_cast<size_t>(last) > lines.size())
    return fail(Stage::Rewrite, fmt::format("lines {}-{} are outside the source", first, last), first);
  std::string snippet;
  for (int l = first; l <= last; ++l) snippet += lines[static_cast<size_t>(l - 1)] + "\n";
  std::vector<TextEdit> shifted;
  for (TextEdit e : subs) {
    if (e.line < first || e.end_line > last) continue;
    e.line -= first - 1;
    e.end_line -= first - 1;
    shifted.push_back(std::move(e));
  }
  std::string text = TDX_TRY(apply_edits(snippet, std::move(shifted)));
  if (from_indent == to_indent) return text;
  std::string out;
  size_t extra = from_indent.size() >= to_indent.size() ? from_indent.size() - to_indent.size() : 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? text.size() : nl + 1;
    if (line.starts_with(from_indent)) {
      line = std::string(to_indent) + line.substr(from_indent.size());
    } else {
      size_t blanks = line.find_first_not_of(' ');
      if (blanks == std::string::npos) blanks = line.size();
      line.erase(0, std::min(blanks, extra));
    }
    out += line + "\n";
  }
  return out;
}

bool alone_on_lines(const KernelContext& ctx, const PyNode& stmt) {
  const auto& lines = ctx.task->lines;
  if (stmt.line < 1 || stmt.end_line > static_cast<int>(lines.size())) return false;
  const std::string& first = lines[stmt.line - 1];
  if (first.find_first_not_of(" \t") != static_cast<size_t>(stmt.col - 1)) return false;
  std::string rest = lines[stmt.end_line - 1].substr(std::min<size_t>(stmt.end_col - 1, lines[stmt.end_line - 1].size()));
  size_t k = rest.find_first_not_of(" \t");
  return k == std::string::npos || rest[k] == '#';
}

bool contains_call(const PyNode& node, std::initializer_list<std::string_view> names) {
  bool found = false;
  auto check = [&](const PyNode& n) {
    if (found || n.type != "Call") return;
    std::string name = normalize_triton_name(call_name(n));
    for (auto want : names) found |= name == want;
  };
  check(node);
  PyModule::walk(node, check);
  return found;
}

std::vector<std::string> kernel_params(const KernelContext& ctx) {
  return ctx.function ? parameter_names(*ctx.function) : std::vector<std::string>{};
}

const PyNode* launch_call(const KernelContext& ctx) {
  if (!ctx.function || !ctx.launch || !ctx.task) return nullptr;
  return l0::KernelView(ctx).launch_call();
}

const PyNode* launch_argument(const KernelContext& ctx, const PyNode& call, std::string_view param) {
  return bound_argument(call, ctx.function, param);
}

bool imports_triton(const KernelContext& ctx) {
  for (const PyNode* stmt : ctx.ast->root().children_in("body")) {
    if (stmt->type != "Import") continue;
    for (const PyNode* alias : stmt->children_in("names"))
      if (alias->str_field("name") == "triton" && alias->str_field("asname").empty()) return true;
  }
  return false;
}

}  // namespace tdx::stmt_util
