// One MLIR op's text: `%r = dialect.op %a, %b {attrs} : types loc(...)`, the generic form
// `"tt.reduce"(%x) <{axis = 1 : i32}> ({`, function headers and region closing lines.
#include <cctype>
#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "tritondx/ir/mlir_internal.h"
#include "tritondx/ir/mlir_syntax.h"

namespace tdx::mlir_detail {

namespace {

using namespace mlir_syntax;

// ---- structure of a line

enum CharClass : uint8_t { kPlain, kQuote, kOpen, kClose, kGt, kSpace, kComma };

// At depth 0 spaces and commas matter (" : ", " -> ", type lists); inside brackets only
// brackets and strings do, so the scanner skips runs of kPlain with the table of its depth.
constexpr std::array<uint8_t, 256> make_classes(bool top) {
  std::array<uint8_t, 256> c{};
  c['"'] = kQuote;
  c['('] = c['['] = c['{'] = c['<'] = kOpen;
  c[')'] = c[']'] = c['}'] = kClose;
  c['>'] = kGt;
  if (top) c[' '] = kSpace, c[','] = kComma;
  return c;
}
constexpr std::array<uint8_t, 256> kTopClasses = make_classes(true);
constexpr std::array<uint8_t, 256> kNestedClasses = make_classes(false);

// One pass over an op's text: bracket balance, the region opener, and the depth-0 markers the
// op parser needs (results '=', types ':', trailing loc, and the type list's separators).
struct Shape {
  OpTextStatus status = OpTextStatus::Ok;
  std::string error;
  size_t opener = npos;    // first bracket left open (the region opener)
  int region_opens = 0;
  size_t last_loc = npos;  // last "loc(" at depth 0
  size_t eq = npos;        // first " = " at depth 0
  size_t colon = npos;     // first " : " at depth 0
  Marks marks;             // after the colon (or from the start with types_only)
};

Shape scan_shape(std::string_view s, bool types_only = false) {
  Shape r;
  constexpr int kMaxDepth = 128;
  char kinds[kMaxDepth];
  size_t where[kMaxDepth];
  int sp = 0;
  bool in_types = types_only;
  const size_t n = s.size();
  auto fail_with = [&](std::string msg) {
    r.status = OpTextStatus::Error;
    r.error = std::move(msg);
    return r;
  };
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* classes = sp == 0 ? kTopClasses.data() : kNestedClasses.data();
    while (i < n && classes[static_cast<unsigned char>(s[i])] == kPlain) ++i;
    if (i == n) break;
    const char c = s[i];
    switch (classes[static_cast<unsigned char>(c)]) {
      case kQuote: {
        size_t j = skip_string(s, i);
        if (j == npos) return fail_with("unterminated string");
        i = j - 1;
        break;
      }
      case kOpen:
        if (sp == kMaxDepth) return fail_with("brackets nested too deeply");
        if (sp == 0 && c == '(' && i >= 3 && s.compare(i - 3, 3, "loc") == 0 &&
            (i == 3 || is_space(s[i - 4])))
          r.last_loc = i - 3;
        kinds[sp] = c, where[sp] = i, ++sp;
        break;
      case kGt:
        if (i > 0 && s[i - 1] == '-') break;  // "->"
        [[fallthrough]];
      case kClose:
        if (sp == 0 || closer_of(kinds[sp - 1]) != c)
          return fail_with(sp == 0 ? fmt::format("unbalanced '{}'", c)
                                   : fmt::format("'{}' closes '{}'", c, kinds[sp - 1]));
        --sp;
        break;
      case kSpace:
        if (i + 2 >= n) break;
        if (s[i + 2] == ' ') {
          const char m = s[i + 1];
          if (m == '=' && r.eq == npos) r.eq = i;
          else if (m == ':' && r.colon == npos && !in_types) r.colon = i, in_types = true;
          else if (m == '*' && in_types && r.marks.star == npos) r.marks.star = i;
        } else if (in_types && i + 3 < n && s[i + 3] == ' ') {
          if (s[i + 1] == '-' && s[i + 2] == '>' && r.marks.arrow == npos) r.marks.arrow = i;
          else if (s[i + 1] == 't' && s[i + 2] == 'o' && r.marks.to == npos) r.marks.to = i;
        }
        break;
      case kComma:
        if (in_types) {
          if (r.marks.n_commas < Marks::kMaxCommas) r.marks.commas[r.marks.n_commas++] = i;
          else r.marks.overflow = true;
        }
        break;
      default: break;
    }
  }
  if (sp == 0) return r;
  if (kinds[sp - 1] != '{') {
    r.status = OpTextStatus::NeedMore;  // e.g. an llvm.switch case list continues
    return r;
  }
  r.opener = where[0];
  for (int k = 0; k < sp; ++k) r.region_opens += kinds[k] == '{';
  return r;
}

// Splits a trailing " loc(...)" off `head` (which ends before any region opener).
std::string_view take_loc(std::string_view text, std::string_view& head, size_t last_loc) {
  head = rtrim(head);
  if (last_loc == npos || last_loc >= head.size() || head.empty() || head.back() != ')') return {};
  size_t close = match_close(text, last_loc + 3);
  if (close != head.size() - 1) return {};
  std::string_view loc = text.substr(last_loc + 4, close - last_loc - 4);
  head = rtrim(text.substr(0, last_loc));
  return loc;
}

// ---- attributes and operands

void add_dict(std::string_view inside, std::vector<MlirAttribute>& out) {
  for_each_dict_entry(inside, [&](std::string_view key, std::string_view value) {
    out.push_back(MlirAttribute{std::string(key), std::string(value)});
  });
}

struct Keywords {
  std::string_view words[4];
  int count = 0;
};

// Walks the part of an op before its types: SSA operands (any depth), attribute dictionaries
// and properties, inline `name = value` attributes and bare keywords (depth 0).
void scan_pre(std::string_view s, MlirOp& op, Keywords& kw) {
  int depth = 0;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      i = skip_string(s, i);
      if (i == npos) return;
      continue;
    }
    if (c == '%') {
      size_t n = i + 1;
      while (n < s.size() && is_name_char(s[n])) ++n;
      if (n < s.size() && s[n] == '#') {
        ++n;
        while (n < s.size() && is_digit(s[n])) ++n;
      }
      bool def = n < s.size() && s[n] == ':';  // `%arg: type` block argument
      if (!def) {
        size_t k = n;
        while (k < s.size() && s[k] == ' ') ++k;
        def = k < s.size() && s[k] == '=' && (k + 1 == s.size() || s[k + 1] != '=');
      }
      if (!def && n > i + 1) op.operands.emplace_back(s.substr(i, n - i));
      i = n;
      continue;
    }
    if (depth == 0 && c == '{') {
      size_t close = match_close(s, i);
      if (close == npos) return;
      add_dict(s.substr(i + 1, close - i - 1), op.attributes);
      i = close + 1;
      continue;
    }
    if (depth == 0 && c == '<' && i + 1 < s.size() && s[i + 1] == '{') {  // properties <{...}>
      size_t close = match_close(s, i + 1);
      if (close == npos) return;
      add_dict(s.substr(i + 2, close - i - 2), op.attributes);
      i = close + 1;
      if (i < s.size() && s[i] == '>') ++i;
      continue;
    }
    if (depth == 0 && (is_alpha(c) || c == '_') && (i == 0 || !is_name_char(s[i - 1]))) {
      size_t n = i;
      while (n < s.size() && is_name_char(s[n])) ++n;
      std::string_view word = s.substr(i, n - i);
      if (s.compare(n, 3, " = ") == 0 && (n + 3 == s.size() || s[n + 3] != '=')) {
        size_t v = n + 3, e = v;
        int d = 0;
        while (e < s.size()) {
          char ch = s[e];
          if (ch == '"') {
            e = skip_string(s, e);
            if (e == npos) e = s.size();
            continue;
          }
          if (is_open(ch)) ++d;
          else if (is_close_at(s, e)) --d;
          else if (d == 0 && (is_space(ch) || ch == ',')) break;
          ++e;
        }
        op.attributes.push_back(MlirAttribute{std::string(word), std::string(s.substr(v, e - v))});
        i = e;
        continue;
      }
      if (kw.count < 4) kw.words[kw.count++] = word;
      i = n;
      continue;
    }
    if (is_open(c)) ++depth;
    else if (is_close_at(s, i)) --depth;
    ++i;
  }
}

// Ops whose leading bare words are attributes.
void name_keywords(MlirOp& op, const Keywords& kw) {
  auto set = [&](int k, const char* name) {
    if (k < kw.count) op.attributes.push_back(MlirAttribute{name, std::string(kw.words[k])});
  };
  std::string_view n = op.name;
  if (n == "arith.cmpi" || n == "arith.cmpf") set(0, "predicate");
  else if (n == "tt.get_program_id" || n == "tt.get_num_programs") set(0, "axis");
  else if (n == "tt.atomic_rmw") set(0, "atomic_rmw_op"), set(1, "sem"), set(2, "scope");
  else if (n == "tt.atomic_cas") set(0, "sem"), set(1, "scope");
}

// ---- functions

bool is_function_op(std::string_view name) {
  return name == "tt.func" || name == "llvm.func" || name == "func.func";
}

void parse_argument(std::string_view p, MlirFunction& fn, TypeContext& tc, int line) {
  MlirArgument a;
  std::string_view rest = p;
  if (!p.empty() && p[0] == '%') {
    size_t colon = p.find(':');
    a.name = std::string(trim(p.substr(0, colon)));
    rest = colon == npos ? std::string_view{} : ltrim(p.substr(colon + 1));
  }
  size_t end = std::min(find_top(rest, " {"), find_top(rest, " loc("));
  if (end == npos) end = rest.size();
  if (!trim(rest.substr(0, end)).empty()) a.type = tc.get(rest.substr(0, end), line);
  std::string_view tail = ltrim(rest.substr(end));
  if (!tail.empty() && tail[0] == '{') {
    size_t close = match_close(tail, 0);
    if (close != npos) add_dict(tail.substr(1, close - 1), a.attributes);
  }
  fn.arguments.push_back(std::move(a));
}

// `public @name(%a: t {attrs} loc(...), ...) -> t attributes {...}`
void parse_function_header(std::string_view rest, MlirOp& op, MlirFunction& fn, TypeContext& tc,
                           int line) {
  rest = ltrim(rest);
  fn.is_public = true;
  while (!rest.empty() && rest[0] != '@') {
    std::string_view word = scan::take_word(rest);
    if (word.empty()) return;
    if (word == "private" || word == "nested" || word == "internal") fn.is_public = false;
    rest = ltrim(rest);
  }
  if (rest.empty()) return;
  rest.remove_prefix(1);
  if (!rest.empty() && rest[0] == '"') {
    if (auto q = scan::take_quoted(rest)) fn.name = std::string(*q);
  } else {
    size_t n = 0;
    while (n < rest.size() && (is_name_char(rest[n]) || rest[n] == '$')) ++n;
    fn.name = std::string(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  rest = ltrim(rest);
  if (!rest.empty() && rest[0] == '(') {
    size_t close = match_close(rest, 0);
    if (close == npos) return;
    for_each_top(rest.substr(1, close - 1), ',',
                 [&](std::string_view p) { parse_argument(p, fn, tc, line); });
    rest = ltrim(rest.substr(close + 1));
  }
  size_t attrs = find_top(rest, "attributes {");
  if (rest.starts_with("->"))
    type_list(rest.substr(2, attrs == npos ? npos : attrs - 2), op.result_types, tc, line);
  if (attrs != npos) {
    size_t open = attrs + 11, close = match_close(rest, open);
    if (close != npos) add_dict(rest.substr(open + 1, close - open - 1), op.attributes);
  }
  for (const MlirArgument& a : fn.arguments) op.operand_types.push_back(a.type);
}

}  // namespace

// ---- entry points

OpTextResult parse_op_text(std::string_view text, int line, MlirOp& op, TypeContext& types,
                           MlirFunction* function) {
  OpTextResult res;
  Shape shape = scan_shape(text);
  if (shape.status != OpTextStatus::Ok) {
    res.status = shape.status;
    res.error = std::move(shape.error);
    return res;
  }
  res.region_opens = shape.region_opens;
  std::string_view rest = text.substr(0, shape.opener == npos ? text.size() : shape.opener);
  res.loc = take_loc(text, rest, shape.last_loc);

  auto error = [&](std::string msg) {
    res.status = OpTextStatus::Error;
    res.error = std::move(msg);
    return res;
  };
  if (rest.empty()) return error("expected an operation");
  if (rest[0] == '%') {
    size_t eq = shape.eq;
    if (eq == npos || eq + 3 > rest.size()) return error("expected ' = ' after the op's results");
    bool ok = true;
    for_each_top(rest.substr(0, eq), ',', [&](std::string_view r) {
      size_t colon = r.find(':');
      std::string_view name = trim(r.substr(0, colon));
      if (name.size() < 2 || name[0] != '%') ok = false;
      op.results.emplace_back(name);
      int count = 1;
      if (colon != npos) {
        auto n = scan::parse_int<int>(r.substr(colon + 1));
        if (!n || *n < 1) ok = false;
        else count = *n;
      }
      op.result_count += count;
    });
    if (!ok) return error("malformed op results");
    rest = ltrim(rest.substr(eq + 3));
  }
  std::string_view name;
  if (!rest.empty() && rest[0] == '"') {
    auto q = scan::take_quoted(rest);
    if (q) name = *q;
  } else {
    name = scan::take_while(rest, scan::is_ident);
  }
  if (name.empty() || !(is_alpha(name[0]) || name[0] == '_'))
    return error(fmt::format("expected an operation name at '{}'", rest.substr(0, 40)));
  op.name = std::string(name);

  if (function && is_function_op(name)) {
    res.is_function = true;
    parse_function_header(rest, op, *function, types, line);
    return res;
  }

  // Positions in `text`: the op's operands/attributes, then its types.
  const size_t body = static_cast<size_t>(rest.data() - text.data());
  const size_t head_end = body + rest.size();
  size_t colon = shape.colon;
  bool has_types = colon != npos && colon >= body && colon < head_end;
  size_t types_at = colon + 3;  // where the types start, after " : "
  Marks marks;  // relative to type_text
  if (has_types) marks = shape.marks, marks.shift(types_at);
  // `tt.print " x: " {hex = false} : %x : i32`: operands follow the first colon.
  if (has_types && text[types_at] == '%') {
    colon = find_top(text.substr(0, head_end), " : ", types_at);
    has_types = colon != npos;
    types_at = colon + 3;
    if (has_types) marks = scan_shape(text.substr(types_at, head_end - types_at), true).marks;
  }
  // `arith.constant 4611686018427387904: i64`, `arith.constant dense<8>: tensor<128xi32>`: hand-written
  // IR (Triton's own lit tests) may omit the space before a constant's colon.
  if (!has_types && name == "arith.constant") {
    colon = find_top(text.substr(0, head_end), ": ", body);
    has_types = colon != npos;
    types_at = colon + 2;
    if (has_types) marks = scan_shape(text.substr(types_at, head_end - types_at), true).marks;
  }
  std::string_view pre = text.substr(body, (has_types ? colon : head_end) - body);
  std::string_view type_text =
      has_types ? text.substr(types_at, head_end - types_at) : std::string_view{};
  Keywords kw;
  op.operands.reserve(static_cast<size_t>(std::count(pre.begin(), pre.end(), '%')));
  scan_pre(pre, op, kw);
  name_keywords(op, kw);
  if (name == "tt.call") {  // `tt.call @helper(%a, %b)`: the callee's symbol, without its '@'
    std::string_view p = ltrim(pre);
    if (p.starts_with('@')) {
      p.remove_prefix(1);
      std::string_view symbol = scan::take_while(p, [](char c) {
        return c == '_' || c == '.' || c == '$' || std::isalnum(static_cast<unsigned char>(c));
      });
      op.attributes.push_back(MlirAttribute{"callee", std::string(symbol)});
    }
  }
  if (name == "arith.constant") {
    std::string_view v = trim(pre);
    if (!v.empty() && v[0] == '{') v = trim(v.substr(match_close(v, 0) + 1));
    op.attributes.push_back(MlirAttribute{"value", std::string(v)});
  }
  if (!types.enabled) return res;
  // Region ops print their result types in the header: `scf.if %c -> (t)`, `scf.for ... -> (t)`.
  if (res.region_opens > 0) {
    if (size_t arrow = find_top(pre, "-> "); arrow != npos)
      type_list(pre.substr(arrow + 3), op.result_types, types, line);
    if (name == "scf.for") {
      if (!type_text.empty()) {
        const MlirType& iv = types.get(type_text, line);
        op.operand_types.assign(3, iv);
        if (op.operands.size() == 3 + op.result_types.size())
          op.operand_types.insert(op.operand_types.end(), op.result_types.begin(), op.result_types.end());
      }
      type_text = {};
    }
  }
  if (!type_text.empty()) assign_types(type_text, marks, op, types, line);
  return res;
}

std::string parse_closing_tail(std::string_view tail, int line, MlirOp& op, TypeContext& types,
                               std::string_view& loc) {
  tail = trim(tail);
  while (!tail.empty() && tail[0] == ')') tail = ltrim(tail.substr(1));  // `})` of a generic op
  if (tail.empty()) return {};
  Shape shape = scan_shape(tail);
  if (shape.status != OpTextStatus::Ok || shape.region_opens > 0)
    return shape.error.empty() ? std::string("unbalanced brackets after '}'") : shape.error;
  std::string_view rest = tail;
  loc = take_loc(tail, rest, shape.last_loc);
  if (!rest.empty() && rest[0] == '{') {  // loop attributes: `} {tt.num_stages = 3 : i32}`
    size_t close = match_close(rest, 0);
    add_dict(rest.substr(1, close - 1), op.attributes);
    rest = ltrim(rest.substr(close + 1));
  }
  if (rest.starts_with("attributes {")) {
    size_t close = match_close(rest, 11);
    add_dict(rest.substr(12, close - 12), op.attributes);
    rest = ltrim(rest.substr(close + 1));
  }
  if (types.enabled && !rest.empty() && rest[0] == ':' && op.operand_types.empty() &&
      op.result_types.empty()) {
    std::string_view type_text = trim(rest.substr(1));
    Shape types_shape = scan_shape(type_text, /*types_only=*/true);
    assign_types(type_text, types_shape.marks, op, types, line);
  }
  return {};
}

}  // namespace tdx::mlir_detail
