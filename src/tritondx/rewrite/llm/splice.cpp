#include "tritondx/rewrite/llm/splice.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace tdx {

namespace {

const std::set<std::string> kProtected = {"reference", "make_inputs", "bytes_moved", "flops", "TOLERANCE",
                                          "MUTATES"};

// First line of a top-level statement, decorators included.
int start_line(const PyNode& n) {
  int line = n.line;
  for (const PyNode* d : n.children_in("decorator_list")) line = std::min(line, d->line);
  return line;
}

std::string lines_text(const std::vector<std::string>& lines, int from, int to) {
  std::string out;
  for (int i = from; i <= to && i <= static_cast<int>(lines.size()); ++i) out += lines[i - 1] + "\n";
  return out;
}

std::string squash(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<const PyNode*> top_level(const PyModule& m) { return m.root().children_in("body"); }

bool is_function(const PyNode& n) { return n.type == "FunctionDef" || n.type == "AsyncFunctionDef"; }

// Names an Assign/AnnAssign binds when its targets are plain names; empty otherwise.
std::vector<std::string> assigned_names(const PyNode& n) {
  std::vector<std::string> out;
  if (n.type != "Assign" && n.type != "AnnAssign") return out;
  for (const auto& c : n.children) {
    if (c.field != "targets" && c.field != "target") continue;
    if (c.type != "Name") return {};
    out.push_back(c.str_field("id"));
  }
  return out;
}

// "x, y=1, *args" -> ["args:x", "args:y", "vararg:args"].
std::vector<std::string> parameters(const PyNode& fn) {
  std::vector<std::string> out;
  const PyNode* args = fn.child("args");
  if (!args) return out;
  for (const auto& a : args->children)
    if (a.type == "arg") out.push_back(a.field + ":" + a.str_field("arg"));
  return out;
}

std::string parameter_list(const std::vector<std::string>& params) {
  std::string out;
  for (const auto& p : params) {
    std::string name = p.substr(p.find(':') + 1);
    if (p.rfind("vararg:", 0) == 0) name = "*" + name;
    if (p.rfind("kwarg:", 0) == 0) name = "**" + name;
    out += (out.empty() ? "" : ", ") + name;
  }
  return "(" + out + ")";
}

bool mentions_any(const PyNode& from, const std::set<std::string>& names) {
  bool found = false;
  PyModule::walk(from, [&](const PyNode& n) {
    if (n.type == "Name" && names.contains(n.str_field("id"))) found = true;
  });
  return found;
}

}  // namespace

nlohmann::json Splice::to_json() const {
  return {{"replaced", replaced}, {"inserted", inserted}, {"added_imports", added_imports}, {"ignored", ignored}};
}

Expected<Splice> splice_reply(const Task& original, const PyModule& original_ast, const ReplyCode& reply) {
  const auto& olines = original.lines;
  const auto rlines = split_lines(reply.code);
  Splice out;

  // The original's top level.
  std::map<std::string, const PyNode*> ofuncs;
  std::set<std::string> onames, oimports;
  int last_import_end = 0, first_def_start = 0, docstring_end = 0;
  for (const PyNode* n : top_level(original_ast)) {
    if (is_function(*n) || n->type == "ClassDef") {
      onames.insert(n->str_field("name"));
      if (is_function(*n)) ofuncs[n->str_field("name")] = n;
      if (!first_def_start) first_def_start = start_line(*n);
    } else if (n->type == "Import" || n->type == "ImportFrom") {
      oimports.insert(squash(lines_text(olines, n->line, n->end_line)));
      last_import_end = n->end_line;
      for (const PyNode* a : n->children_in("names")) {
        std::string as = a->str_field("asname"), name = a->str_field("name");
        onames.insert(as.empty() ? name.substr(0, name.find('.')) : as);
      }
    } else if (n->type == "Expr" && !docstring_end && !last_import_end && !first_def_start) {
      docstring_end = n->end_line;
    } else {
      for (auto& name : assigned_names(*n)) onames.insert(name);
    }
  }
  const PyNode* olaunch = original_ast.function("launch");
  if (!olaunch) return fail(Stage::Rewrite, "the original task has no launch function", 0, original.path);

  std::set<std::string> jit_names;
  for (const auto& k : original.kernels) jit_names.insert(k.name);
  std::set<std::string> reply_jit;
  for (const auto& k : reply.task.kernels) reply_jit.insert(k.name), jit_names.insert(k.name);

  // The reply's top level, its own lines only (not the stand-ins); a later definition of a
  // name wins, as it would in Python.
  std::vector<std::pair<std::string, const PyNode*>> rfuncs;
  std::vector<const PyNode*> rimports, rassigns;
  for (const PyNode* n : top_level(reply.module)) {
    if (n->line > reply.code_lines || n->line < reply.first_line) continue;  // prelude, stand-ins
    if (is_function(*n)) {
      std::string name = n->str_field("name");
      auto it = std::find_if(rfuncs.begin(), rfuncs.end(), [&](const auto& p) { return p.first == name; });
      if (it != rfuncs.end()) it->second = n;
      else rfuncs.emplace_back(name, n);
    } else if (n->type == "Import" || n->type == "ImportFrom") {
      rimports.push_back(n);
    } else if (!assigned_names(*n).empty()) {
      rassigns.push_back(n);
    } else if (n->type == "Expr" && n->child("value") && n->child("value")->type == "Constant") {
      // a docstring or stray string: nothing to take
    } else {
      out.ignored.push_back(fmt::format("{} statement at line {} (only functions, imports and constants are taken)",
                                        n->type, n->line));
    }
  }

  // Edits on the original's lines: replacements [start, end] and insertions before a line.
  std::map<int, std::pair<int, std::string>> replace;
  std::map<int, std::string> insert_before;
  std::string new_functions, new_imports, new_constants;

  const PyNode* rlaunch = nullptr;
  for (const auto& [name, n] : rfuncs) {
    std::string text = lines_text(rlines, start_line(*n), n->end_line);
    if (kProtected.contains(name)) {
      out.ignored.push_back(name + " (the original's is kept)");
      continue;
    }
    if (name == "launch") rlaunch = n;
    auto orig = ofuncs.find(name);
    bool kernel_or_launch = name == "launch" || reply_jit.contains(name);
    if (orig != ofuncs.end()) {
      const PyNode* o = orig->second;
      if (!kernel_or_launch) {
        if (squash(text) != squash(lines_text(olines, start_line(*o), o->end_line)))
          out.ignored.push_back(name + " (a plain helper of the original; the original's is kept)");
        continue;
      }
      std::string old = lines_text(olines, start_line(*o), o->end_line);
      if (old == text) continue;
      replace[start_line(*o)] = {o->end_line, text};
      out.replaced.push_back(name);
    } else if (onames.contains(name)) {
      out.ignored.push_back(name + " (the original defines that name otherwise)");
    } else {
      new_functions += text + "\n\n";
      out.inserted.push_back(name);
    }
  }
  for (const PyNode* n : rimports) {
    std::string text = lines_text(rlines, n->line, n->end_line);
    if (oimports.contains(squash(text))) continue;
    new_imports += text;
    out.added_imports.push_back(squash(text));
  }
  for (const PyNode* n : rassigns) {
    auto names = assigned_names(*n);
    std::string text = lines_text(rlines, n->line, n->end_line);
    bool all_new = std::none_of(names.begin(), names.end(), [&](const auto& x) { return onames.contains(x); });
    bool prot = std::any_of(names.begin(), names.end(), [&](const auto& x) { return kProtected.contains(x); });
    if (prot) {
      out.ignored.push_back(names.front() + " (the original's is kept)");
    } else if (all_new) {
      new_constants += text;
      out.inserted.push_back(names.front());
    } else {
      out.ignored.push_back(names.front() + " (a module-level name of the original; the original's is kept)");
    }
  }

  for (const auto& n : reply.not_run) out.ignored.push_back(n);

  // launch keeps its parameters and still launches a Triton kernel.
  if (rlaunch) {
    auto before = parameters(*olaunch), after = parameters(*rlaunch);
    if (before != after)
      return fail(Stage::Llm, fmt::format("the reply changes launch's parameters from {} to {}", parameter_list(before),
                                          parameter_list(after)),
                  rlaunch->line);
    if (!mentions_any(*rlaunch, jit_names))
      return fail(Stage::Llm, "the reply's launch no longer launches any @triton.jit kernel", rlaunch->line);
  }

  // A reply may leave launch out (the answer format keeps what it leaves out), but then the
  // original's launch must launch what it changed.
  if (!rlaunch && std::none_of(out.replaced.begin(), out.replaced.end(),
                               [&](const std::string& name) { return reply_jit.contains(name); }))
    return fail(Stage::Llm, "not a kernel: the reply's code defines no launch function and replaces none of the "
                            "original's @triton.jit functions, so nothing would launch its code");

  const int olaunch_start = start_line(*olaunch);
  if (!new_functions.empty()) insert_before[olaunch_start] += new_functions;
  const int import_at = last_import_end ? last_import_end + 1 : docstring_end + 1;
  if (!new_imports.empty()) insert_before[import_at] += (last_import_end ? "" : "\n") + new_imports;
  if (!new_constants.empty()) insert_before[import_at] += "\n" + new_constants;

  std::string result;
  const int n = static_cast<int>(olines.size());
  for (int line = 1; line <= n + 1; ++line) {
    if (auto it = insert_before.find(line); it != insert_before.end()) result += it->second;
    if (line > n) break;
    if (auto it = replace.find(line); it != replace.end()) {
      result += it->second.second;
      line = it->second.first;
      continue;
    }
    result += olines[line - 1] + "\n";
  }
  if (!original.source.empty() && original.source.back() != '\n' && !result.empty() && result.back() == '\n' &&
      replace.find(n) == replace.end())
    result.pop_back();
  if (result == original.source) return fail(Stage::Llm, "the reply's code changes nothing in the task");
  out.source = std::move(result);
  return out;
}

}  // namespace tdx
