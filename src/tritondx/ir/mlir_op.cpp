// One MLIR op's text: `%r = dialect.op %a, %b {attrs} : types loc(...)`, the generic form
// `"tt.reduce"(%x) <{axis = 1 : i32}> ({`, function headers and region closing lines.
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

constexpr std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> c{};
  c['"'] = kQuote;
  c['('] = c['['] = c['{'] = c['<'] = kOpen;
  c[')'] = c[']'] = c['}'] = kClose;
  c['>'] = kGt;
  c[' '] = kSpace;
  c[','] = kComma;
  return c;
}
constexpr std::array<uint8_t, 256> kClasses = make_classes();

// Depth-0 positions inside a type list ("a, b -> c", "a * b -> c", "a to b").
struct Marks {
  static constexpr int kMaxCommas = 32;
  size_t arrow = npos, star = npos, to = npos;
  size_t commas[kMaxCommas];
  int n_commas = 0;
  bool overflow = false;  // more commas than recorded: split with for_each_top instead

  void shift(size_t base) {
    if (arrow != npos) arrow -= base;
    if (star != npos) star -= base;
    if (to != npos) to -= base;
    for (int k = 0; k < n_commas; ++k) commas[k] -= base;
  }
};

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
    const char c = s[i];
    switch (kClasses[static_cast<unsigned char>(c)]) {
      case kPlain: break;
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
        if (sp != 0 || i + 2 >= n) break;
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
        if (sp == 0 && in_types) {
          if (r.marks.n_commas < Marks::kMaxCommas) r.marks.commas[r.marks.n_commas++] = i;
          else r.marks.overflow = true;
        }
        break;
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

// ---- types

// A few types without allocating for the common case.
class TypeRefs {
 public:
  void push(const MlirType& t) {
    if (n_ < kInline) inline_[n_] = &t;
    else more_.push_back(&t);
    ++n_;
  }
  size_t size() const { return n_; }
  const MlirType& operator[](size_t k) const { return k < kInline ? *inline_[k] : *more_[k - kInline]; }
  void append_to(std::vector<MlirType>& out) const {
    out.reserve(out.size() + n_);
    for (size_t k = 0; k < n_; ++k) out.push_back((*this)[k]);
  }

 private:
  static constexpr size_t kInline = 16;
  const MlirType* inline_[kInline];
  std::vector<const MlirType*> more_;
  size_t n_ = 0;
};

// One piece of a type list; "(a, b)" expands to its members, "()" to nothing.
void expand_piece(std::string_view p, TypeRefs& out, TypeContext& tc, int line) {
  p = trim(p);
  if (p.empty()) return;
  if (p.front() == '(' && match_close(p, 0) == p.size() - 1) {
    for_each_top(p.substr(1, p.size() - 2), ',',
                 [&](std::string_view q) { out.push(tc.get(q, line)); });
    return;
  }
  out.push(tc.get(p, line));
}

// Types of t[b, e), split at the depth-0 commas recorded in marks.
void type_range(std::string_view t, const Marks& mk, size_t b, size_t e, TypeRefs& out,
                TypeContext& tc, int line) {
  if (mk.overflow) {
    for_each_top(t.substr(b, e - b), ',', [&](std::string_view p) { expand_piece(p, out, tc, line); });
    return;
  }
  size_t start = b;
  for (int k = 0; k < mk.n_commas; ++k) {
    size_t c = mk.commas[k];
    if (c < b || c >= e) continue;
    expand_piece(t.substr(start, c - start), out, tc, line);
    start = c + 1;
  }
  expand_piece(t.substr(start, e - start), out, tc, line);
}

void type_list(std::string_view s, std::vector<MlirType>& out, TypeContext& tc, int line) {
  TypeRefs refs;
  for_each_top(s, ',', [&](std::string_view p) { expand_piece(p, refs, tc, line); });
  refs.append_to(out);
}

MlirType loaded_type(const MlirType& ptr) {
  return ptr.is_pointer ? ptr.with_element(ptr.pointee) : ptr;
}

// Fills operand_types/result_types from the text after ` : ` (marks relative to t).
void assign_types(std::string_view t, const Marks& mk, MlirOp& op, TypeContext& tc, int line) {
  std::string_view name = op.name;
  const size_t n_operands = op.operands.size();
  const size_t n_results = static_cast<size_t>(op.result_count);

  if (mk.arrow != npos) {
    const size_t arrow = mk.arrow;
    TypeRefs ins, outs;
    type_range(t, mk, arrow + 4, t.size(), outs, tc, line);
    if (mk.star != npos && mk.star < arrow) {  // dot: a * b -> c
      ins.push(tc.get(t.substr(0, mk.star), line));
      ins.push(tc.get(t.substr(mk.star + 3, arrow - mk.star - 3), line));
      ins.append_to(op.operand_types);
      outs.append_to(op.operand_types);
      outs.append_to(op.result_types);
      return;
    }
    type_range(t, mk, 0, arrow, ins, tc, line);
    ins.append_to(op.operand_types);
    if (name == "ttg.async_copy_global_to_local") {  // src -> dst; the result is a token
      outs.append_to(op.operand_types);
      op.result_types.push_back(tc.get("!ttg.async.token", line));
    } else if (n_results > 0) {
      outs.append_to(op.result_types);
    } else {
      outs.append_to(op.operand_types);
    }
    return;
  }
  if (mk.to != npos) {  // casts: a to b
    op.operand_types.push_back(tc.get(t.substr(0, mk.to), line));
    op.result_types.push_back(tc.get(t.substr(mk.to + 4), line));
    return;
  }
  TypeRefs ts;
  type_range(t, mk, 0, t.size(), ts, tc, line);
  if (ts.size() == 0) return;
  const MlirType& first = ts[0];
  if (name == "tt.load") {
    MlirType loaded = loaded_type(first);
    op.operand_types.push_back(first);
    if (n_operands >= 2) op.operand_types.push_back(first.with_element("i1"));
    if (n_operands >= 3) op.operand_types.push_back(loaded);
    op.result_types.push_back(std::move(loaded));
    return;
  }
  if (name == "tt.store") {
    op.operand_types.push_back(first);
    if (n_operands >= 2) op.operand_types.push_back(loaded_type(first));
    if (n_operands >= 3) op.operand_types.push_back(first.with_element("i1"));
    return;
  }
  if ((name == "arith.cmpi" || name == "arith.cmpf") && ts.size() == 1) {
    op.operand_types.assign(n_operands, first);
    op.result_types.push_back(first.with_element("i1"));
    return;
  }
  if (name == "arith.select" && n_operands == 3) {
    const MlirType& value = ts[ts.size() - 1];
    op.operand_types.push_back(ts.size() == 1 ? tc.get("i1", line) : first);
    op.operand_types.push_back(value);
    op.operand_types.push_back(value);
    op.result_types.push_back(value);
    return;
  }
  if (n_results == 0) {
    ts.append_to(op.operand_types);
  } else if (ts.size() == 1) {  // one type for every operand and result
    op.operand_types.assign(n_operands, first);
    op.result_types.assign(n_results, first);
  } else if (ts.size() == n_operands) {
    ts.append_to(op.operand_types);
    if (ts.size() == n_results) ts.append_to(op.result_types);
    else op.result_types.assign(n_results, first);
  } else if (ts.size() == n_results) {
    ts.append_to(op.result_types);
  } else {
    ts.append_to(op.operand_types);
  }
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

// ---- TypeContext

const MlirType& TypeContext::get(std::string_view text, int line) {
  text = trim(text);
  if (auto it = cache_.find(text); it != cache_.end()) return it->second;
  auto t = parse_mlir_type(text);
  if (!t) {
    if (error.empty()) error = t.error().message, error_line = line;
    return empty_;
  }
  // '#alias' uses (a '#dialect.attr' has a dot after its first word).
  for (size_t i = text.find('#'); i != npos; i = text.find('#', i + 1)) {
    size_t n = i + 1;
    while (n < text.size() && (is_alpha(text[n]) || is_digit(text[n]) || text[n] == '_')) ++n;
    if (n > i + 1 && (n == text.size() || text[n] != '.')) alias_uses.try_emplace(text.substr(i, n - i), line);
  }
  const std::string& enc = t->encoding;
  if (enc.size() > 1 && enc[0] == '#' && enc.find('<') != std::string::npos &&
      !module_.inline_layouts.contains(enc)) {
    auto layout = parse_layout(enc);
    if (!layout) {
      if (error.empty()) error = layout.error().message, error_line = line;
    } else {
      module_.inline_layouts.emplace(enc, std::move(*layout));
    }
  }
  return cache_.emplace(text, std::move(*t)).first->second;
}

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
    if (eq == npos || eq >= rest.size()) return error("expected ' = ' after the op's results");
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
  const size_t colon = shape.colon;
  const bool has_types = colon != npos && colon >= body && colon < head_end;
  std::string_view pre = text.substr(body, (has_types ? colon : head_end) - body);
  std::string_view type_text =
      has_types ? text.substr(colon + 3, head_end - colon - 3) : std::string_view{};
  Keywords kw;
  op.operands.reserve(static_cast<size_t>(std::count(pre.begin(), pre.end(), '%')));
  scan_pre(pre, op, kw);
  name_keywords(op, kw);
  if (name == "arith.constant") {
    std::string_view v = trim(pre);
    if (!v.empty() && v[0] == '{') v = trim(v.substr(match_close(v, 0) + 1));
    op.attributes.push_back(MlirAttribute{"value", std::string(v)});
  }
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
  if (!type_text.empty()) {
    Marks marks = shape.marks;
    marks.shift(colon + 3);
    assign_types(type_text, marks, op, types, line);
  }
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
  if (!rest.empty() && rest[0] == ':' && op.operand_types.empty() && op.result_types.empty()) {
    std::string_view type_text = trim(rest.substr(1));
    Shape types_shape = scan_shape(type_text, /*types_only=*/true);
    assign_types(type_text, types_shape.marks, op, types, line);
  }
  return {};
}

}  // namespace tdx::mlir_detail
