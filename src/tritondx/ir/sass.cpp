// SASS parser for `nvdisasm -c -g [-hex]` and `cuobjdump -sass` listings.
#include "tritondx/ir/sass.h"

#include <algorithm>
#include <array>

#include "tritondx/ir/text_scan.h"

namespace tdx {

std::string SassInstruction::full_opcode() const { return scan::join_dotted(opcode, modifiers); }

bool SassInstruction::has_modifier(std::string_view m) const {
  return std::find(modifiers.begin(), modifiers.end(), m) != modifiers.end();
}

int SassInstruction::access_bits() const {
  static constexpr std::array<std::string_view, 9> kMemoryOps{"LDG", "STG", "LDS", "STS", "LD",
                                                              "ST",  "LDL", "STL", "LDGSTS"};
  if (std::find(kMemoryOps.begin(), kMemoryOps.end(), opcode) == kMemoryOps.end()) return 0;
  for (const auto& m : modifiers) {
    if (m == "128") return 128;
    if (m == "64") return 64;
    if (m == "U16" || m == "S16") return 16;
    if (m == "U8" || m == "S8") return 8;
  }
  return 32;
}

namespace {

using scan::ltrim;
using scan::trim;

// `//## File "/path/k.py", line 8` with optional `, column C` / `, col C` and
// ` inlined at "/path/o.py", line 20` (ignored: the innermost location is kept).
bool parse_line_info(std::string_view s, SourceLoc& loc) {
  if (!scan::consume(s, "//##")) return false;
  s = ltrim(s);
  if (!scan::consume(s, "File")) return false;
  s = ltrim(s);
  auto file = scan::take_quoted(s);
  if (!file) return false;
  s = ltrim(s);
  scan::consume(s, ",");
  s = ltrim(s);
  if (!scan::consume(s, "line")) return false;
  s = ltrim(s);
  auto line = scan::take_int(s);
  if (!line) return false;
  int col = 0;
  s = ltrim(s);
  if (scan::consume(s, ",")) {
    s = ltrim(s);
    if (scan::consume(s, "column") || scan::consume(s, "col")) {
      s = ltrim(s);
      col = scan::take_int(s).value_or(0);
    }
  }
  loc = SourceLoc{std::string(*file), *line, col};
  return true;
}

// "/*0080*/" at the start of s: the offset, consuming it; nullopt for other comments
// (such as the "/* 0x... */" encoding words).
std::optional<uint32_t> take_offset(std::string_view& s) {
  std::string_view r = s;
  if (!scan::consume(r, "/*")) return std::nullopt;
  std::string_view hex = scan::take_while(r, scan::is_hex);
  if (hex.empty() || !scan::consume(r, "*/")) return std::nullopt;
  auto v = scan::parse_int<uint32_t>(hex, 16);
  if (!v) return std::nullopt;
  s = r;
  return v;
}

std::string arch_from_headerflags(std::string_view s) {
  size_t pos = s.find("EF_CUDA_SM");
  if (pos == std::string_view::npos) return {};
  std::string_view r = s.substr(pos + 10);
  std::string_view digits = scan::take_while(r, scan::is_digit);
  if (digits.empty()) return {};
  std::string arch = "sm_" + std::string(digits);
  if (s.find("EF_CUDA_ACCELERATORS") != std::string_view::npos) arch += 'a';
  return arch;
}

class SassParser {
 public:
  explicit SassParser(std::string_view text) : text_(text) {}

  Expected<SassModule> run() {
    mod_.instructions.reserve(text_.size() / 60);
    scan::LineReader lines(text_);
    std::string_view raw;
    while (lines.next(raw)) {
      line_no_ = lines.number();
      std::string_view t = trim(raw);
      if (t.empty()) continue;
      if (t.starts_with("/*")) {
        std::string_view r = t;
        if (auto offset = take_offset(r)) {
          if (auto err = add_instruction(*offset, r)) return std::unexpected(std::move(*err));
        }
        continue;  // a line holding only encoding words
      }
      if (t.starts_with(".L_") && t.ends_with(":")) {
        mod_.labels[std::string(t.substr(0, t.size() - 1))] = static_cast<int>(mod_.instructions.size());
      } else if (t.starts_with("//##")) {
        parse_line_info(t, loc_);
      } else if (t.starts_with("Function :") || t.starts_with("Function:")) {
        std::string_view r = t.substr(t.find(':') + 1);
        enter_function(trim(r));
      } else if (t.starts_with(".section")) {
        std::string_view r = t.substr(8);
        std::string_view name = scan::take_word(r);
        name = name.substr(0, name.find(','));
        enter_function(name.starts_with(".text.") ? name.substr(6) : std::string_view{});
      } else if (t.starts_with(".text.") && t.ends_with(":")) {
        enter_function(t.substr(6, t.size() - 7));
      } else if (t.starts_with("code for ")) {
        mod_.arch = std::string(trim(t.substr(9)));
      } else if (t.starts_with("arch = ")) {
        mod_.arch = std::string(trim(t.substr(7)));
      } else if (t.starts_with(".headerflags") && mod_.arch.empty()) {
        mod_.arch = arch_from_headerflags(t);
      }
    }
    return std::move(mod_);
  }

 private:
  void enter_function(std::string_view name) {
    if (name == function_) return;
    function_ = std::string(name);
    loc_ = {};
    if (!function_.empty() && std::find(mod_.functions.begin(), mod_.functions.end(), function_) == mod_.functions.end())
      mod_.functions.push_back(function_);
  }

  std::optional<Diagnostic> add_instruction(uint32_t offset, std::string_view r) {
    size_t enc = r.find("/*");
    if (enc != std::string_view::npos) r = r.substr(0, enc);
    r = trim(r);
    if (r.starts_with('{')) r = ltrim(r.substr(1));  // dual-issue group opens
    size_t semi = r.find(';');
    if (semi != std::string_view::npos) {
      r = r.substr(0, semi);
    } else if (r.ends_with('}')) {  // dual-issue group closes in place of ';'
      r.remove_suffix(1);
    }
    r = trim(r);
    if (r.ends_with('}')) r = rtrim_brace(r);

    SassInstruction ins;
    ins.index = static_cast<int>(mod_.instructions.size());
    ins.line = line_no_;
    ins.offset = offset;
    ins.text = std::string(r);
    if (r.starts_with('@')) ins.predicate = std::string(scan::take_word(r));
    std::string_view op = scan::take_word(r);
    if (op.empty())
      return Diagnostic{Stage::Sass, {}, line_no_, 0, "instruction without an opcode"};
    scan::split_dotted(op, ins.opcode, ins.modifiers);
    ins.operands = scan::split_top_level(r);
    ins.loc = loc_;
    ins.function = function_;
    mod_.instructions.push_back(std::move(ins));
    return std::nullopt;
  }

  static std::string_view rtrim_brace(std::string_view r) {
    r.remove_suffix(1);
    return trim(r);
  }

  std::string_view text_;
  SassModule mod_;
  int line_no_ = 0;
  std::string function_;
  SourceLoc loc_;
};

}  // namespace

Expected<SassModule> parse_sass(std::string_view text) { return SassParser(text).run(); }

std::vector<SassLoop> sass_loops(const SassModule& module) {
  std::vector<SassLoop> out;
  for (const auto& ins : module.instructions) {
    if (ins.opcode != "BRA" || ins.operands.empty()) continue;
    std::string_view target = trim(ins.operands.back());
    int to = -1;
    if (size_t l = target.find(".L_"); l != std::string_view::npos) {
      std::string_view name = target.substr(l);
      name = name.substr(0, name.find_first_of(") "));
      if (auto it = module.labels.find(std::string(name)); it != module.labels.end()) to = it->second;
    } else if (target.starts_with("0x")) {
      auto offset = scan::parse_int<uint32_t>(target.substr(2), 16);
      for (const auto& other : module.instructions)
        if (offset && other.offset == *offset && other.function == ins.function) to = other.index;
    }
    if (to >= 0 && to < ins.index && module.instructions[static_cast<size_t>(to)].function == ins.function)
      out.push_back({to, ins.index});
  }
  return out;
}

}  // namespace tdx
