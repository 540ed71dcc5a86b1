// PTX parser: a line scanner that splits statements at ';', tracks `{ }` blocks (function
// bodies, inline-asm scopes, skipped `.section` blocks) and the current `.loc`.
#include "tritondx/ir/ptx.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "tritondx/ir/text_scan.h"

namespace tdx {

std::string PtxInstruction::full_opcode() const { return scan::join_dotted(opcode, modifiers); }

bool PtxInstruction::has_modifier(std::string_view m) const {
  return std::find(modifiers.begin(), modifiers.end(), m) != modifiers.end();
}

namespace {

using scan::ltrim;
using scan::trim;

// Bits of a PTX type modifier ("b32" -> 32, "f16x2" -> 32, "e4m3" -> 8), 0 if not a type.
int type_bits(std::string_view m) {
  if (m == "pred") return 1;
  if (m == "tf32") return 32;
  if (m == "bf16") return 16;
  if (m == "bf16x2") return 32;
  if (m == "e4m3" || m == "e5m2" || m == "e2m3" || m == "e3m2") return 8;
  if (m == "e4m3x2" || m == "e5m2x2") return 16;
  if (m == "e2m1") return 4;
  if (m.size() < 2) return 0;
  char k = m[0];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return 0;
  std::string_view rest = m.substr(1);
  auto bits = scan::take_int(rest);
  if (!bits || (*bits != 8 && *bits != 16 && *bits != 32 && *bits != 64 && *bits != 128)) return 0;
  if (rest.empty()) return *bits;
  if (rest == "x2" && k == 'f') return *bits * 2;  // f16x2
  return 0;
}

std::string_view state_space_of(std::string_view m) {
  static constexpr std::array<std::string_view, 5> kSpaces{"global", "shared", "local", "param", "const"};
  std::string_view base = m.substr(0, m.find("::"));
  for (auto s : kSpaces)
    if (base == s) return s;
  return {};
}

std::optional<int> parse_ptx_int(std::string_view s) {
  s = trim(s);
  if (s.starts_with("0x") || s.starts_with("0X")) return scan::parse_int(s.substr(2), 16);
  return scan::parse_int(s);
}

class PtxParser {
 public:
  explicit PtxParser(std::string_view text) : text_(text) {}

  Expected<PtxModule> run() {
    mod_.instructions.reserve(text_.size() / 40);
    scan::LineReader lines(text_);
    std::string_view line;
    while (lines.next(line)) {
      line_no_ = lines.number();
      if (!error_.message.empty()) break;
      process_line(strip_comment(line));
    }
    if (!error_.message.empty()) return std::unexpected(std::move(error_));
    if (stmt_active_) return fail(Stage::Ptx, "unterminated statement (missing ';')", stmt_line_);
    if (in_header_) return fail(Stage::Ptx, "unterminated parameter list", header_line_);
    if (!open_blocks_.empty())
      return fail(Stage::Ptx, "unterminated `{` block", open_blocks_.back());
    for (const auto& [id, first_line] : loc_file_uses_)
      if (!mod_.files.contains(id))
        return fail(Stage::Ptx, fmt::format(".loc refers to undeclared .file {}", id), first_line);
    for (size_t i = 0; i < mod_.instructions.size(); ++i)
      if (file_ids_[i] >= 0) mod_.instructions[i].loc.file = mod_.files[file_ids_[i]];
    return std::move(mod_);
  }

 private:
  static std::string_view strip_comment(std::string_view line) {
    size_t pos = 0;
    while ((pos = scan::find_unquoted(line, '/', pos)) != std::string_view::npos) {
      if (pos + 1 < line.size() && line[pos + 1] == '/') return line.substr(0, pos);
      ++pos;
    }
    return line;
  }

  void set_error(std::string message, int line = 0) {
    if (error_.message.empty()) error_ = Diagnostic{Stage::Ptx, {}, line ? line : line_no_, 0, std::move(message)};
  }

  void process_line(std::string_view seg) {
    while (error_.message.empty()) {
      seg = ltrim(seg);
      if (seg.empty()) return;
      if (stmt_active_) {
        seg = continue_statement(seg);
        continue;
      }
      if (in_header_) {
        seg = continue_header(seg);
        continue;
      }
      if (in_section_) {
        seg = skip_section(seg);
        continue;
      }
      char c = seg[0];
      if (c == '{') {
        open_block();
        seg.remove_prefix(1);
      } else if (c == '}') {
        close_block();
        seg.remove_prefix(1);
      } else if (c == ';') {
        pending_function_.clear();  // end of a prototype
        seg.remove_prefix(1);
      } else if (c == '.') {
        seg = directive(seg);
      } else if (is_label(seg)) {
        seg = seg.substr(seg.find(':') + 1);
      } else {
        stmt_active_ = true;
        stmt_line_ = line_no_;
        stmt_.clear();
        stmt_depth_ = 0;
        seg = continue_statement(seg);
      }
    }
  }

  static bool is_label(std::string_view seg) {
    size_t i = 0;
    while (i < seg.size() && (scan::is_ident(seg[i]) || seg[i] == '%')) ++i;
    return i > 0 && i < seg.size() && seg[i] == ':' && (i + 1 == seg.size() || seg[i + 1] != ':');
  }

  void open_block() {
    if (section_wait_) {
      section_wait_ = false;
      in_section_ = true;
      section_depth_ = static_cast<int>(open_blocks_.size());
    } else if (open_blocks_.empty() && !pending_function_.empty()) {
      function_ = std::move(pending_function_);
      pending_function_.clear();
      loc_ = {};
      loc_file_ = -1;
    }
    open_blocks_.push_back(line_no_);
  }

  void close_block() {
    if (open_blocks_.empty()) return set_error("unmatched `}`");
    open_blocks_.pop_back();
    if (open_blocks_.empty()) function_.clear();
  }

  std::string_view skip_section(std::string_view seg) {
    size_t pos = seg.find_first_of("{}");
    if (pos == std::string_view::npos) return {};
    if (seg[pos] == '{') {
      open_blocks_.push_back(line_no_);
    } else {
      open_blocks_.pop_back();
      if (static_cast<int>(open_blocks_.size()) == section_depth_) in_section_ = false;
    }
    return seg.substr(pos + 1);
  }

  // Parameter list of .entry/.func: skip to the ')' that closes the first '('.
  std::string_view continue_header(std::string_view seg) {
    for (size_t i = 0; i < seg.size(); ++i) {
      char c = seg[i];
      if (c == '(') {
        ++header_parens_;
      } else if (c == ')') {
        if (--header_parens_ == 0) {
          in_header_ = false;
          return seg.substr(i + 1);
        }
      } else if (header_parens_ == 0 && (c == '{' || c == ';' || c == '.')) {
        in_header_ = false;  // no parameter list
        return seg.substr(i);
      }
    }
    return {};
  }

  // Appends to the current statement up to its ';' (or a block-closing '}').
  std::string_view continue_statement(std::string_view seg) {
    for (size_t i = 0; i < seg.size(); ++i) {
      char c = seg[i];
      if (c == '"') {
        std::string_view rest = seg.substr(i);
        if (!scan::take_quoted(rest)) break;  // unterminated string: rest of line belongs to it
        i = seg.size() - rest.size() - 1;
      } else if (c == '{' || c == '[' || c == '(') {
        ++stmt_depth_;
      } else if (c == ')' || c == ']') {
        if (stmt_depth_ > 0) --stmt_depth_;
      } else if (c == '}') {
        if (stmt_depth_ > 0) {
          --stmt_depth_;
        } else {  // block closes before ';': take the statement as ended
          finish_statement(seg.substr(0, i));
          return seg.substr(i);
        }
      } else if (c == ';' && stmt_depth_ == 0) {
        finish_statement(seg.substr(0, i));
        return seg.substr(i + 1);
      }
    }
    stmt_.append(seg);
    stmt_ += ' ';
    return {};
  }

  void finish_statement(std::string_view tail) {
    stmt_active_ = false;
    if (stmt_.empty()) {
      if (stmt_is_directive_) {
        stmt_is_directive_ = false;
        return;
      }
      add_instruction(trim(tail));
      return;
    }
    stmt_.append(tail);
    if (stmt_is_directive_) {
      stmt_is_directive_ = false;
      stmt_.clear();
      return;
    }
    std::string s = std::move(stmt_);
    stmt_.clear();
    add_instruction(trim(s));
  }

  std::string_view directive(std::string_view seg) {
    std::string_view rest = seg;
    std::string_view word = scan::take_while(rest, [](char c) { return scan::is_ident(c); });
    while (word == ".visible" || word == ".weak" || word == ".extern") {
      std::string_view probe = ltrim(rest);
      if (!probe.starts_with(".")) break;
      rest = probe;
      word = scan::take_while(rest, [](char c) { return scan::is_ident(c); });
    }
    if (word == ".version") {
      mod_.version = std::string(scan::take_word(rest));
      return {};
    }
    if (word == ".target") {
      std::string_view t = scan::take_word(rest);
      mod_.target = std::string(t.substr(0, t.find(',')));
      return {};
    }
    if (word == ".address_size") {
      mod_.address_size = scan::parse_int(scan::take_word(rest)).value_or(0);
      return {};
    }
    if (word == ".maxnreg") {
      mod_.max_nreg = scan::parse_int(scan::take_word(rest)).value_or(0);
      return {};
    }
    if (word == ".file") return file_directive(rest);
    if (word == ".loc") return loc_directive(rest);
    if (word == ".entry" || word == ".func") {
      rest = ltrim(rest);
      if (word == ".func" && rest.starts_with("(")) {  // return parameters
        size_t end = scan::match_bracket(rest, 0);
        if (end == std::string_view::npos) {
          set_error("unterminated .func return parameters");
          return {};
        }
        rest = ltrim(rest.substr(end));
      }
      std::string_view name = scan::take_while(rest, [](char c) { return scan::is_ident(c) || c == '%'; });
      if (name.empty()) {
        set_error(fmt::format("{} without a name", word));
        return {};
      }
      if (word == ".entry") mod_.entries.emplace_back(name);
      pending_function_ = std::string(name);
      in_header_ = true;
      header_parens_ = 0;
      header_line_ = line_no_;
      return rest;
    }
    if (word == ".section") {
      section_wait_ = true;
      scan::take_word(rest);  // section name
      return rest;
    }
    // Any other directive (.reg, .shared, .pragma, .reqntid, .b8 ...): to its ';' or the line's end,
    // continuing over lines while an initializer brace is open.
    int depth = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
      char c = rest[i];
      if (c == '{') ++depth;
      else if (c == '}') --depth;
      else if (c == ';' && depth <= 0) return rest.substr(i + 1);
    }
    if (depth > 0) {
      stmt_active_ = true;
      stmt_is_directive_ = true;
      stmt_line_ = line_no_;
      stmt_depth_ = depth;
      stmt_ = "x";  // non-empty marker; contents are discarded
    }
    return {};
  }

  std::string_view file_directive(std::string_view rest) {
    rest = ltrim(rest);
    auto id = scan::take_int(rest);
    rest = ltrim(rest);
    auto path = scan::take_quoted(rest);
    if (!id || !path) {
      set_error("malformed .file directive");
      return {};
    }
    mod_.files[*id] = std::string(*path);
    return {};  // optional ", timestamp, size" ignored
  }

  std::string_view loc_directive(std::string_view rest) {
    std::array<int, 3> v{};
    for (int& x : v) {
      rest = ltrim(rest);
      auto n = scan::take_int(rest);
      if (!n) {
        set_error("malformed .loc directive");
        return {};
      }
      x = *n;
    }
    // ", function_name ..., inlined_at F L C" and similar: the innermost location is kept.
    loc_file_ = v[0];
    loc_ = SourceLoc{{}, v[1], v[2]};
    loc_file_uses_.try_emplace(v[0], line_no_);
    return {};
  }

  void add_instruction(std::string_view s) {
    if (s.empty()) return;
    PtxInstruction ins;
    ins.index = static_cast<int>(mod_.instructions.size());
    ins.line = stmt_line_;
    ins.text = std::string(s);
    std::string_view rest = s;
    if (rest.starts_with('@')) ins.predicate = std::string(scan::take_word(rest));
    rest = ltrim(rest);
    std::string_view op = scan::take_while(rest, [](char c) { return !scan::is_space(c) && c != '{' && c != '['; });
    if (op.empty()) return set_error("instruction without an opcode", stmt_line_);
    scan::split_dotted(op, ins.opcode, ins.modifiers);
    ins.operands = scan::split_top_level(rest);
    for (const auto& m : ins.modifiers) {
      if (ins.state_space.empty()) ins.state_space = std::string(state_space_of(m));
      if (m == "v2") ins.vector_width = 2;
      else if (m == "v4") ins.vector_width = 4;
      else if (m == "v8") ins.vector_width = 8;
      else if (ins.element_bits == 0) ins.element_bits = type_bits(m);
    }
    // cp.async (non-bulk) moves cp-size bytes: record them as the element size.
    if (ins.opcode == "cp" && !ins.modifiers.empty() && ins.modifiers[0] == "async" && !ins.has_modifier("bulk") &&
        ins.element_bits == 0 && ins.operands.size() >= 3)
      if (auto bytes = parse_ptx_int(ins.operands[2])) ins.element_bits = *bytes * 8;
    ins.loc = loc_;
    ins.function = function_;
    file_ids_.push_back(loc_file_);
    mod_.instructions.push_back(std::move(ins));
  }

  std::string_view text_;
  PtxModule mod_;
  Diagnostic error_;
  int line_no_ = 0;

  std::vector<int> open_blocks_;  // line of each open '{'
  std::string function_;
  std::string pending_function_;
  bool in_header_ = false;
  int header_parens_ = 0;
  int header_line_ = 0;
  bool section_wait_ = false;
  bool in_section_ = false;
  int section_depth_ = 0;

  bool stmt_active_ = false;
  bool stmt_is_directive_ = false;
  std::string stmt_;
  int stmt_line_ = 0;
  int stmt_depth_ = 0;

  SourceLoc loc_;
  int loc_file_ = -1;
  std::map<int, int> loc_file_uses_;  // .file id -> first .loc line using it
  std::vector<int> file_ids_;         // per instruction
};

}  // namespace

Expected<PtxModule> parse_ptx(std::string_view text) { return PtxParser(text).run(); }

}  // namespace tdx
