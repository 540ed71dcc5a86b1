#include "tritondx/analysis/pass_effects.h"

#include <map>
#include <optional>

#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_snapshots.h"

namespace tdx {

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

// The op text with every `loc(...)` removed, SSA names replaced by `%` and layout aliases
// replaced by their definitions.
std::string signature(const MlirOp& op, const MlirModule& module) {
  std::string_view t = op.text;
  std::string out;
  out.reserve(t.size());
  size_t i = t.find_first_not_of(' ');
  if (i == std::string_view::npos) return out;
  while (i < t.size()) {
    char c = t[i];
    if (c == '"') {  // strings are copied verbatim
      size_t j = i + 1;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, t.size());
      out.append(t.substr(i, j - i));
      i = j;
      continue;
    }
    if (t.compare(i, 4, "loc(") == 0 && (i == 0 || !is_ident_char(t[i - 1]))) {
      int depth = 0;
      size_t j = i + 3;
      for (; j < t.size(); ++j) {
        if (t[j] == '(') ++depth;
        if (t[j] == ')' && --depth == 0) break;
      }
      i = j + 1;
      while (!out.empty() && out.back() == ' ') out.pop_back();
      continue;
    }
    if (c == '%') {
      size_t j = i + 1;
      while (j < t.size() && is_ident_char(t[j])) ++j;
      if (j < t.size() && t[j] == '#')
        for (++j; j < t.size() && t[j] >= '0' && t[j] <= '9'; ++j) {
        }
      out.push_back('%');
      i = j;
      continue;
    }
    if (c == '#') {
      size_t j = i + 1;
      while (j < t.size() && is_ident_char(t[j])) ++j;
      std::string alias(t.substr(i, j - i));
      if (auto it = module.layouts.find(alias); it != module.layouts.end()) {
        std::string_view text = it->second.text;
        if (auto eq = text.find(" = "); eq != std::string_view::npos && text.starts_with('#')) text = text.substr(eq + 3);
        out.append(text);
      } else {
        out.append(alias);
      }
      i = j;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

using LineOps = std::map<int, std::map<std::string, int>>;  // line (0 = unmapped) -> signature -> count

LineOps index_ops(const MlirModule& module, const std::string& source_file) {
  LineOps out;
  for (const auto& op : module.ops) {
    if (op.name == "tt.func" || op.name == "tt.return" || op.name == "scf.yield") continue;
    ++out[source_line(op, source_file)][signature(op, module)];
  }
  return out;
}

struct Diff {
  std::vector<int> lines;
  int added = 0, removed = 0, unmapped = 0;
};

Diff diff(const LineOps& before, const LineOps& after) {
  Diff d;
  auto visit = [&](int line, const std::map<std::string, int>* a, const std::map<std::string, int>* b) {
    static const std::map<std::string, int> kEmpty;
    const auto& x = a ? *a : kEmpty;
    const auto& y = b ? *b : kEmpty;
    int added = 0, removed = 0;
    for (const auto& [sig, n] : x) {
      auto it = y.find(sig);
      int m = it == y.end() ? 0 : it->second;
      if (m < n) removed += n - m;
    }
    for (const auto& [sig, m] : y) {
      auto it = x.find(sig);
      int n = it == x.end() ? 0 : it->second;
      if (m > n) added += m - n;
    }
    d.added += added;
    d.removed += removed;
    if (added + removed == 0) return;
    if (line == 0)
      d.unmapped += added + removed;
    else
      d.lines.push_back(line);
  };
  auto ia = before.begin();
  auto ib = after.begin();
  while (ia != before.end() || ib != after.end()) {
    if (ib == after.end() || (ia != before.end() && ia->first < ib->first)) {
      visit(ia->first, &ia->second, nullptr);
      ++ia;
    } else if (ia == before.end() || ib->first < ia->first) {
      visit(ib->first, nullptr, &ib->second);
      ++ib;
    } else {
      visit(ia->first, &ia->second, &ib->second);
      ++ia, ++ib;
    }
  }
  return d;
}

}  // namespace

std::vector<PassEffect> compute_pass_effects(const PassDump& dump, const std::string& source_file) {
  std::vector<PassEffect> out;
  out.reserve(dump.steps.size());
  MlirParseOptions options;
  options.types = false;
  // Consecutive steps share a snapshot (one's "after" is the next one's "before"): parse each once.
  int cached_index = -1;
  std::optional<LineOps> cached;
  auto ops_of = [&](int snapshot) -> const LineOps* {
    if (snapshot == cached_index) return cached ? &*cached : nullptr;
    cached_index = snapshot;
    cached.reset();
    auto module = parse_snapshot(dump.snapshots[static_cast<size_t>(snapshot)], options);
    if (module) cached = index_ops(*module, source_file);
    return cached ? &*cached : nullptr;
  };
  for (size_t s = 0; s < dump.steps.size(); ++s) {
    const PassStep& step = dump.steps[s];
    PassEffect e;
    e.step = static_cast<int>(s);
    e.pass_name = step.pass_name;
    e.pass_arg = step.pass_arg;
    e.changed = step.changed;
    if (step.before >= 0 && step.after >= 0 && is_tensor_ir_snapshot(dump.snapshots[static_cast<size_t>(step.before)]) &&
        is_tensor_ir_snapshot(dump.snapshots[static_cast<size_t>(step.after)])) {
      if (!step.changed) {
        e.compared = true;
      } else {
        std::optional<LineOps> before;
        if (const LineOps* b = ops_of(step.before)) before = *b;
        const LineOps* after = ops_of(step.after);
        if (before && after) {
          Diff d = diff(*before, *after);
          e.compared = true;
          e.lines = std::move(d.lines);
          e.ops_added = d.added;
          e.ops_removed = d.removed;
          e.unmapped_changes = d.unmapped;
        }
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

void to_json(nlohmann::json& j, const PassEffect& e) {
  j = nlohmann::json{{"step", e.step},           {"pass", e.pass_name},         {"arg", e.pass_arg},
                     {"changed", e.changed},     {"compared", e.compared},      {"lines", e.lines},
                     {"ops_added", e.ops_added}, {"ops_removed", e.ops_removed}, {"unmapped_changes", e.unmapped_changes}};
}

}  // namespace tdx
