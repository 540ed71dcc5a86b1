// LLVM IR (.llir) parser: functions, instructions, and !dbg locations resolved through the
// DILocation -> scope chain -> DIFile metadata.
#include "tritondx/ir/llvm_ir.h"

#include <array>
#include <optional>

#include <fmt/format.h>

#include "tritondx/ir/text_scan.h"

namespace tdx {
namespace {

using scan::ltrim;
using scan::trim;

enum class MetaKind : uint8_t { Undefined, Other, Location, Scope, File };

struct MetaNode {
  MetaKind kind = MetaKind::Undefined;
  int line = 0;
  int col = 0;
  int scope = -1;
  int inlined_at = -1;  // DILocation: its inlinedAt location
  int file = -1;
  std::string_view filename;
  std::string_view directory;
};

// Words that may sit between an opcode and its type: flags, predicates, attributes, conventions.
bool is_skippable_word(std::string_view w) {
  static constexpr std::array<std::string_view, 58> kWords{
      "nuw",   "nsw",      "exact",   "disjoint", "inbounds", "nusw",    "fast",   "nnan",   "ninf",   "nsz",
      "arcp",  "contract", "afn",     "reassoc",  "volatile", "atomic",  "eq",     "ne",     "ugt",    "uge",
      "ult",   "ule",      "sgt",     "sge",      "slt",      "sle",     "oeq",    "ogt",    "oge",    "olt",
      "ole",   "one",      "ord",     "ueq",      "une",      "uno",     "true",   "false",  "noundef", "zeroext",
      "signext", "inreg",  "nonnull", "fastcc",   "ccc",      "coldcc",  "ptx_kernel", "ptx_device", "nneg",
      "samesign", "tail",  "musttail", "notail",  "dereferenceable", "noalias", "local_unnamed_addr",
      "unnamed_addr", "weak"};
  for (auto k : kWords)
    if (w == k) return true;
  return false;
}

// Decodes LLVM string escapes: \XX hex pairs and \\.
std::string decode_llvm_string(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      if (s[i + 1] == '\\') {
        out += '\\';
        ++i;
        continue;
      }
      if (i + 2 < s.size() && scan::is_hex(s[i + 1]) && scan::is_hex(s[i + 2])) {
        out += static_cast<char>(*scan::parse_int(s.substr(i + 1, 2), 16));
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// The value of `key: value` inside a metadata field list such as
// "line: 5, column: 24, scope: !4"; keys match whole words only.
std::optional<std::string_view> meta_field(std::string_view body, std::string_view key) {
  size_t pos = 0;
  while ((pos = body.find(key, pos)) != std::string_view::npos) {
    bool starts = pos == 0 || body[pos - 1] == ' ' || body[pos - 1] == '(';
    size_t after = pos + key.size();
    if (starts && after < body.size() && body[after] == ':') {
      std::string_view v = ltrim(body.substr(after + 1));
      if (v.starts_with('"')) {
        std::string_view r = v;
        if (auto q = scan::take_quoted(r)) return q;
        return std::nullopt;
      }
      size_t end = 0;
      while (end < v.size() && v[end] != ',' && v[end] != ')') ++end;
      return trim(v.substr(0, end));
    }
    pos = after;
  }
  return std::nullopt;
}

int meta_ref(std::optional<std::string_view> v) {
  if (!v || !v->starts_with('!')) return -1;
  return scan::parse_int(v->substr(1)).value_or(-1);
}

int meta_int(std::optional<std::string_view> v) { return v ? scan::parse_int(*v).value_or(0) : 0; }

// Index of ';' starting a comment, or npos (quotes honoured).
size_t comment_start(std::string_view s) { return scan::find_unquoted(s, ';'); }

class LlvmParser {
 public:
  explicit LlvmParser(std::string_view text) : text_(text) {}

  Expected<LlvmModule> run() {
    mod_.instructions.reserve(text_.size() / 60);
    scan::LineReader lines(text_);
    std::string_view raw;
    std::string joined;  // an instruction continued over several lines ('[' still open)
    int joined_line = 0;
    Brackets joined_brackets;
    while (lines.next(raw)) {
      int line_no = lines.number();
      if (in_function_) {
        std::string_view s = raw;
        size_t c = comment_start(s);
        if (c != std::string_view::npos) s = s.substr(0, c);
        s = trim(s);
        if (!joined.empty()) {
          if (s == "}")
            return fail(Stage::Llir, "the instruction's '[' is never closed before the function ends", joined_line);
          joined += ' ';
          joined += s;
          if (!joined_brackets.feed(s)) continue;
          add_instruction(joined, joined_line);
          joined.clear();
          continue;
        }
        if (s.empty()) continue;
        if (s == "}") {
          end_function();
          continue;
        }
        if (is_label(s)) {
          block_ = std::string(s.substr(0, s.size() - 1));
          continue;
        }
        if (Brackets first; !first.feed(s)) {
          joined = std::string(s);
          joined_line = line_no;
          joined_brackets = first;
          continue;
        }
        add_instruction(s, line_no);
        continue;
      }
      std::string_view s = ltrim(raw);
      if (s.starts_with("define ")) {
        begin_function(s, line_no, /*definition=*/true);
      } else if (s.starts_with("declare ")) {
        begin_function(s, line_no, /*definition=*/false);
      } else if (s.size() > 1 && s[0] == '!' && scan::is_digit(s[1])) {
        parse_metadata(s);
      }
    }
    if (in_function_)
      return fail(Stage::Llir, "unterminated function body", mod_.functions.back().line);
    return resolve();
  }

 private:
  // '[' depth outside string literals, fed a line at a time (an open bracket joins lines).
  struct Brackets {
    int depth = 0;
    bool in_str = false;
    bool escaped = false;
    // True once every '[' fed so far is closed.
    bool feed(std::string_view s) {
      for (char c : s) {
        if (escaped) {
          escaped = false;
        } else if (in_str) {
          if (c == '\\') escaped = true;
          else if (c == '"') in_str = false;
        } else if (c == '"') {
          in_str = true;
        } else if (c == '[') {
          ++depth;
        } else if (c == ']') {
          --depth;
        }
      }
      return depth <= 0;
    }
  };

  static bool is_label(std::string_view s) {
    if (!s.ends_with(':')) return false;
    std::string_view name = s.substr(0, s.size() - 1);
    if (name.empty()) return false;
    if (name.front() == '"') return name.size() >= 2 && name.back() == '"';
    for (char c : name)
      if (!scan::is_ident(c) && c != '-') return false;
    return true;
  }

  static std::string_view global_name(std::string_view s) {
    size_t at = scan::find_unquoted(s, '@');
    if (at == std::string_view::npos) return {};
    std::string_view r = s.substr(at + 1);
    if (r.starts_with('"')) {
      std::string_view q = r;
      return scan::take_quoted(q).value_or(std::string_view{});
    }
    return scan::take_while(r, [](char c) { return scan::is_ident(c) || c == '-'; });
  }

  void begin_function(std::string_view s, int line_no, bool definition) {
    LlvmFunction f;
    f.name = std::string(global_name(s));
    f.is_definition = definition;
    f.line = line_no;
    if (definition && scan::rtrim(s.substr(0, std::min(s.size(), comment_start(s)))).ends_with('{')) {
      f.first_instruction = static_cast<int>(mod_.instructions.size());
      in_function_ = true;
      block_.clear();
    }
    mod_.functions.push_back(std::move(f));
  }

  void end_function() {
    in_function_ = false;
    mod_.functions.back().end_instruction = static_cast<int>(mod_.instructions.size());
  }

  void add_instruction(std::string_view s, int line_no) {
    LlvmInstruction ins;
    ins.index = static_cast<int>(mod_.instructions.size());
    ins.line = line_no;
    ins.function = mod_.functions.back().name;
    ins.block = block_;
    ins.text = std::string(s);

    // Trailing `!dbg !N` attachment (after any quoted asm string).
    size_t dbg = s.rfind("!dbg !");
    size_t last_quote = s.rfind('"');
    if (dbg != std::string_view::npos && (last_quote == std::string_view::npos || dbg > last_quote)) {
      std::string_view r = s.substr(dbg + 6);
      ins.dbg = scan::take_int(r).value_or(-1);
    }

    std::string_view r = s;
    if (r.starts_with('%')) {
      size_t eq = r.find(" = ");
      if (eq != std::string_view::npos) {
        ins.result = std::string(r.substr(0, eq));
        r = r.substr(eq + 3);
      }
    }
    r = ltrim(r);
    std::string_view op = scan::take_word(r);
    while (op == "tail" || op == "musttail" || op == "notail") op = scan::take_word(r);
    ins.opcode = std::string(op);
    r = skip_flags(r);
    ins.type = std::string(take_type(r));
    if (ins.opcode == "call" || ins.opcode == "invoke" || ins.opcode == "callbr") parse_callee(r, ins);
    mod_.instructions.push_back(std::move(ins));
  }

  static std::string_view skip_flags(std::string_view r) {
    while (true) {
      r = ltrim(r);
      std::string_view probe = r;
      std::string_view w = scan::take_while(probe, [](char c) { return scan::is_alpha(c) || c == '_'; });
      if (w.empty()) return r;
      if (probe.starts_with('(') && (w == "range" || w == "align" || w == "dereferenceable" || w == "nofpclass")) {
        size_t end = scan::match_bracket(probe, 0);
        if (end == std::string_view::npos) return r;
        r = probe.substr(end);
        continue;
      }
      if ((w == "align" || w == "syncscope") && !probe.empty() && scan::is_space(probe[0])) {
        r = probe;
        scan::take_word(r);
        continue;
      }
      if (!is_skippable_word(w) || (!probe.empty() && !scan::is_space(probe[0]))) return r;
      r = probe;
    }
  }

  // A type at the start of r: `{ ... }`, `<4 x i32>`, `[2 x float]`, `ptr addrspace(1)` or a word.
  static std::string_view take_type(std::string_view& r) {
    r = ltrim(r);
    if (r.empty()) return {};
    char c = r[0];
    if (c == '{' || c == '<' || c == '[') {
      size_t end = scan::match_bracket(r, 0);
      if (end == std::string_view::npos) return {};
      std::string_view t = r.substr(0, end);
      r.remove_prefix(end);
      return t;
    }
    std::string_view start = r;
    std::string_view w = scan::take_while(r, [](char ch) { return !scan::is_space(ch) && ch != ',' && ch != '('; });
    if (w == "ptr" || w == "label") {
      std::string_view probe = ltrim(r);
      if (probe.starts_with("addrspace(")) {
        size_t end = scan::match_bracket(probe, 9);
        if (end != std::string_view::npos) {
          size_t len = static_cast<size_t>(probe.data() + end - start.data());
          r = probe.substr(end);
          return start.substr(0, len);
        }
      }
    }
    if (w.starts_with('%') || w.starts_with('@')) return {};  // no type: an operand
    return w;
  }

  static void parse_callee(std::string_view r, LlvmInstruction& ins) {
    size_t at = scan::find_unquoted(r, '@');
    size_t asm_pos = r.find("asm ");
    while (asm_pos != std::string_view::npos && asm_pos > 0 && !scan::is_space(r[asm_pos - 1])) asm_pos = r.find("asm ", asm_pos + 1);
    if (asm_pos != std::string_view::npos && (at == std::string_view::npos || asm_pos < at)) {
      ins.callee = "asm";
      std::string_view a = r.substr(asm_pos + 4);
      while (true) {
        a = ltrim(a);
        if (a.starts_with('"')) break;
        if (scan::take_word(a).empty()) return;
      }
      if (auto body = scan::take_quoted(a)) ins.inline_asm = decode_llvm_string(*body);
      return;
    }
    if (at == std::string_view::npos) return;
    std::string_view name = global_name(r.substr(at));
    ins.callee = "@" + std::string(name);
  }

  void parse_metadata(std::string_view s) {
    std::string_view r = s.substr(1);
    auto id = scan::take_int(r);
    if (!id || *id < 0) return;
    r = ltrim(r);
    if (!scan::consume(r, "=")) return;
    r = ltrim(r);
    if (scan::consume(r, "distinct")) r = ltrim(r);
    if (static_cast<size_t>(*id) >= meta_.size()) meta_.resize(static_cast<size_t>(*id) + 1);
    MetaNode& n = meta_[static_cast<size_t>(*id)];
    n.kind = MetaKind::Other;
    size_t paren = r.find('(');
    if (!r.starts_with("!DI") || paren == std::string_view::npos) return;
    std::string_view kind = r.substr(1, paren - 1);
    std::string_view body = r.substr(paren);
    if (kind == "DILocation") {
      n.kind = MetaKind::Location;
      n.line = meta_int(meta_field(body, "line"));
      n.col = meta_int(meta_field(body, "column"));
      n.scope = meta_ref(meta_field(body, "scope"));
      n.inlined_at = meta_ref(meta_field(body, "inlinedAt"));
    } else if (kind == "DIFile") {
      n.kind = MetaKind::File;
      n.filename = meta_field(body, "filename").value_or(std::string_view{});
      n.directory = meta_field(body, "directory").value_or(std::string_view{});
    } else if (kind == "DISubprogram" || kind == "DILexicalBlockFile" || kind == "DILexicalBlock" ||
               kind == "DINamespace" || kind == "DICompileUnit") {
      n.kind = MetaKind::Scope;
      n.scope = meta_ref(meta_field(body, "scope"));
      n.file = meta_ref(meta_field(body, "file"));
    }
  }

  const MetaNode* node(int id) const {
    if (id < 0 || static_cast<size_t>(id) >= meta_.size()) return nullptr;
    const MetaNode& n = meta_[static_cast<size_t>(id)];
    return n.kind == MetaKind::Undefined ? nullptr : &n;
  }

  // File path of a scope: the first node up its scope chain naming a file.
  std::string file_of_scope(int scope) {
    for (int hops = 0; hops < 64; ++hops) {
      const MetaNode* n = node(scope);
      if (!n) return {};
      int file_id = n->kind == MetaKind::File ? scope : n->file;
      if (file_id >= 0) {
        if (auto it = file_paths_.find(file_id); it != file_paths_.end()) return it->second;
        const MetaNode* f = node(file_id);
        std::string path;
        if (f && f->kind == MetaKind::File) {
          if (f->directory.empty() || f->filename.starts_with('/')) path = std::string(f->filename);
          else path = fmt::format("{}/{}", f->directory, f->filename);
        }
        file_paths_.emplace(file_id, path);
        return path;
      }
      scope = n->scope;
    }
    return {};
  }

  Expected<LlvmModule> resolve() {
    for (size_t id = 0; id < meta_.size(); ++id) {
      const MetaNode& n = meta_[id];
      if (n.kind != MetaKind::Location) continue;
      mod_.debug_locations.emplace_hint(mod_.debug_locations.end(), static_cast<int>(id),
                                        SourceLoc{file_of_scope(n.scope), n.line, n.col});
      if (n.inlined_at >= 0) mod_.inlined_at.emplace(static_cast<int>(id), n.inlined_at);
    }
    for (auto& ins : mod_.instructions) {
      if (ins.dbg < 0) continue;
      if (!node(ins.dbg))
        return fail(Stage::Llir, fmt::format("!dbg !{} has no definition", ins.dbg), ins.line);
      if (auto it = mod_.debug_locations.find(ins.dbg); it != mod_.debug_locations.end()) ins.loc = it->second;
    }
    return std::move(mod_);
  }

  std::string_view text_;
  LlvmModule mod_;
  bool in_function_ = false;
  std::string block_;
  std::vector<MetaNode> meta_;
  std::map<int, std::string> file_paths_;
};

}  // namespace

Expected<LlvmModule> parse_llvm_ir(std::string_view text) { return LlvmParser(text).run(); }

}  // namespace tdx
