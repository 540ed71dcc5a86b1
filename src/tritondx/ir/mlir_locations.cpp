// The #loc table of TTIR/TTGIR text: `#loc3 = loc("/k.py":6:17)`, named locations
// `loc("x"(#loc7))`, `loc(callsite(#a at #b))`, `loc(fused[...])`, `loc(unknown)`.
#include <fmt/format.h>

#include "tritondx/ir/mlir_internal.h"
#include "tritondx/ir/mlir_syntax.h"

namespace tdx::mlir_detail {

namespace {

using namespace mlir_syntax;

bool consume_word(std::string_view& s, std::string_view word) {
  s = ltrim(s);
  return scan::consume(s, word);
}

bool expect(std::string_view& s, char c, std::string& error) {
  s = ltrim(s);
  if (s.empty() || s[0] != c) {
    error = fmt::format("expected '{}' in location at '{}'", c, s.substr(0, 40));
    return false;
  }
  s.remove_prefix(1);
  return true;
}

bool known(const ResolvedLoc& r) { return r.line > 0; }

}  // namespace

SourceLoc to_source_loc(std::string_view file, int line, int col) {
  return SourceLoc{std::string(file), line, col};
}

void LocTable::define(std::string_view alias, std::string_view expr, int line) {
  auto [it, inserted] = index_.try_emplace(alias, static_cast<int>(defs_.size()));
  if (!inserted) {  // a redefinition (several modules in one text): the latest wins
    defs_[it->second] = Def{alias, expr, line, 0, {}};
    return;
  }
  defs_.push_back(Def{alias, expr, line, 0, {}});
}

bool LocTable::resolve_alias(std::string_view alias, ResolvedLoc& out, std::string& error) {
  auto it = index_.find(alias);
  if (it == index_.end()) {
    error = fmt::format("undefined location {}", alias);
    return false;
  }
  Def& d = defs_[it->second];
  if (d.state == 2) {
    out = d.value;
    return true;
  }
  if (d.state == 1) {
    error = fmt::format("location {} refers to itself", alias);
    return false;
  }
  d.state = 1;
  std::string_view s = d.expr;
  ResolvedLoc value;
  bool ok = parse(s, value, error);
  if (ok && !trim(s).empty()) {
    error = fmt::format("unexpected '{}' after location", trim(s));
    ok = false;
  }
  if (!ok) {
    d.state = 0;
    return false;
  }
  d.value = value;
  d.state = 2;
  out = value;
  return true;
}

bool LocTable::parse(std::string_view& s, ResolvedLoc& out, std::string& error) {
  s = ltrim(s);
  out = ResolvedLoc{};
  if (s.empty()) {
    error = "empty location";
    return false;
  }
  if (s[0] == '#') {
    size_t n = 1;
    while (n < s.size() && is_name_char(s[n])) ++n;
    std::string_view alias = s.substr(0, n);
    s.remove_prefix(n);
    return resolve_alias(alias, out, error);
  }
  if (scan::consume(s, "unknown")) return true;
  if (scan::consume(s, "loc(")) return parse(s, out, error) && expect(s, ')', error);
  if (scan::consume(s, "callsite(")) {
    ResolvedLoc callee, caller;
    if (!parse(s, callee, error)) return false;
    if (!consume_word(s, "at")) {
      error = "expected 'at' in callsite location";
      return false;
    }
    if (!parse(s, caller, error) || !expect(s, ')', error)) return false;
    out = callee;
    if (caller.cs_line > 0) {
      out.cs_file = caller.cs_file, out.cs_line = caller.cs_line, out.cs_col = caller.cs_col;
    } else {
      out.cs_file = caller.file, out.cs_line = caller.line, out.cs_col = caller.col;
    }
    if (out.name.empty()) out.name = caller.name;
    return true;
  }
  if (scan::consume(s, "fused")) {
    s = ltrim(s);
    if (!s.empty() && s[0] == '<') {  // fused<#di_subprogram...>[...]
      size_t gt = match_close(s, 0);
      if (gt == npos) {
        error = "unbalanced '<' in fused location";
        return false;
      }
      s.remove_prefix(gt + 1);
    }
    if (!expect(s, '[', error)) return false;
    bool first = true;
    for (;;) {
      s = ltrim(s);
      if (!s.empty() && s[0] == ']') {
        s.remove_prefix(1);
        return true;
      }
      if (!first && !expect(s, ',', error)) return false;
      first = false;
      ResolvedLoc part;
      if (!parse(s, part, error)) return false;
      if (!known(out) && known(part)) {
        std::string_view name = out.name;
        out = part;
        if (!name.empty()) out.name = name;
      } else if (out.name.empty()) {
        out.name = part.name;
      }
    }
  }
  if (s[0] == '"') {
    auto str = scan::take_quoted(s);
    if (!str) {
      error = "unterminated string in location";
      return false;
    }
    if (!s.empty() && s[0] == ':') {  // "file":line:col [to [line]:col]
      s.remove_prefix(1);
      auto line = scan::take_int<int>(s);
      if (!line || !scan::consume(s, ":")) {
        error = "expected line:col in file location";
        return false;
      }
      auto col = scan::take_int<int>(s);
      if (!col) {
        error = "expected a column in file location";
        return false;
      }
      out.file = *str, out.line = *line, out.col = *col;
      std::string_view rest = ltrim(s);
      if (rest.starts_with("to ")) {
        rest.remove_prefix(3);
        rest = ltrim(rest);
        scan::take_int<int>(rest);
        if (scan::consume(rest, ":")) scan::take_int<int>(rest);
        s = rest;
      }
      return true;
    }
    if (!s.empty() && s[0] == '(') {  // "name"(child)
      s.remove_prefix(1);
      if (!parse(s, out, error) || !expect(s, ')', error)) return false;
    }
    out.name = *str;
    return true;
  }
  error = fmt::format("cannot parse location '{}'", s.substr(0, 40));
  return false;
}

bool LocTable::resolve(std::string_view expr, ResolvedLoc& out, std::string& error) {
  std::string_view s = expr;
  if (!parse(s, out, error)) return false;
  if (!trim(s).empty()) {
    error = fmt::format("unexpected '{}' after location", trim(s));
    return false;
  }
  return true;
}

int LocTable::resolve_all(std::string& error) {
  for (const Def& d : defs_) {
    ResolvedLoc r;
    if (!resolve_alias(d.alias, r, error)) return d.line;
  }
  return 0;
}

void LocTable::fill(MlirModule& m) const {
  for (const Def& d : defs_) {
    if (d.state != 2) continue;
    std::string alias(d.alias);
    m.locs.emplace(alias, to_source_loc(d.value.file, d.value.line, d.value.col));
    if (!d.value.name.empty()) m.loc_names.emplace(std::move(alias), std::string(d.value.name));
  }
}

}  // namespace tdx::mlir_detail
