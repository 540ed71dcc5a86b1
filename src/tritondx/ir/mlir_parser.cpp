// parse_mlir: reads TTIR/TTGIR text line by line. Alias definitions (#blocked, #locN) and
// ops go to their own parsers; '{' at the end of an op's line opens a region and the '}'
// lines close it, carrying the region op's loop attributes, types and location.
#include <algorithm>
#include <deque>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "tritondx/ir/mlir.h"
#include "tritondx/ir/mlir_internal.h"
#include "tritondx/ir/mlir_syntax.h"

namespace tdx {

namespace {

using namespace mlir_syntax;
using namespace mlir_detail;

constexpr int kMaxContinuationLines = 4096;

bool is_layout_attribute(std::string_view value) {
  return value.starts_with("#ttg.") || value.starts_with("#ttng.") ||
         value.starts_with("#triton_gpu.") || value.starts_with("#triton_nvidia_gpu.");
}

// `default {` and `partition0(...) num_warps(4) {` open a region of the op on the line before
// (ttg.warp_specialize), or another region of the op whose region just closed.
bool is_region_continuation(std::string_view t) {
  if (t.empty() || !is_alpha(t[0]) || t.back() != '{') return false;
  size_t n = 0;
  while (n < t.size() && (is_alpha(t[n]) || is_digit(t[n]) || t[n] == '_')) ++n;
  return n == t.size() || t[n] != '.';
}

struct Frame {
  int op;    // region owner, -1 for a module
  int line;  // line that opened the region
};

class Parser {
 public:
  Parser(std::string_view text, Stage stage, const MlirParseOptions& options)
      : text_(text), stage_(stage), options_(options), types_(m_) {
    m_.stage = stage;
    types_.enabled = options.types;
    m_.ops.reserve(text.size() / 100 + 16);
    locs_.reserve(text.size() / 100 + 16);
    m_.value_defs.reserve(text.size() / 120 + 16);
  }

  Expected<MlirModule> run();

 private:
  std::unexpected<Diagnostic> error(std::string msg, int line) {
    return fail(stage_, std::move(msg), line);
  }
  std::string alias_definition(std::string_view t, int line);
  std::string closing_line(std::string_view t, int line);
  std::string op_line(std::string_view t, scan::LineReader& reader, int& line);
  Expected<void> finish();

  int parent() const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (it->op >= 0) return it->op;
    return -1;
  }
  void push(int op, int line) {
    stack_.push_back(Frame{op, line});
    if (op >= 0) ++depth_;
  }

  std::string_view text_;
  Stage stage_;
  MlirParseOptions options_;
  MlirModule m_;
  TypeContext types_;
  LocTable loc_table_;
  struct OpLoc {
    std::string_view expr;
    int line = 0;
  };
  std::vector<OpLoc> locs_;  // parallel to m_.ops
  std::deque<std::string> joined_;  // the text of ops printed over several lines, joined
  std::unordered_set<std::string_view> aliases_;  // non-#loc aliases defined
  std::vector<Frame> stack_;
  int depth_ = 0;
  int last_closed_ = -1;  // op whose region closed on the previous line (or that ended there)
};

std::string Parser::alias_definition(std::string_view t, int line) {
  size_t eq = t.find(" = ");
  if (eq == npos) return "expected '#alias = ...'";
  std::string_view name = trim(t.substr(0, eq));
  std::string_view value = trim(t.substr(eq + 3));
  if (value.starts_with("loc(")) {
    size_t close = match_close(value, 3);
    if (close != value.size() - 1) return fmt::format("unbalanced location definition {}", name);
    loc_table_.define(name, value.substr(4, close - 4), line);
    return {};
  }
  aliases_.insert(name);
  if (!is_layout_attribute(value)) return {};
  auto layout = parse_layout(value);
  if (!layout) return layout.error().message;
  layout->alias = std::string(name);
  // Parents of dot_op/slice layouts are aliases too.
  for (size_t i = value.find('#', 1); i != npos; i = value.find('#', i + 1)) {
    size_t n = i + 1;
    while (n < value.size() && (is_alpha(value[n]) || is_digit(value[n]) || value[n] == '_')) ++n;
    if (n > i + 1 && (n == value.size() || value[n] != '.'))
      types_.alias_uses.try_emplace(value.substr(i, n - i), line);
  }
  m_.layouts.insert_or_assign(std::string(name), std::move(*layout));
  return {};
}

std::string Parser::closing_line(std::string_view t, int line) {
  if (stack_.empty()) return "unbalanced '}': no region is open";
  Frame f = stack_.back();
  stack_.pop_back();
  if (f.op >= 0) --depth_;
  std::string_view tail = ltrim(t.substr(1));
  std::string_view after = tail;
  while (!after.empty() && after[0] == ')') after = ltrim(after.substr(1));
  if (!after.empty() && after.back() == '{') {  // `} else {`, `} do {`, `}, {`
    push(f.op, line);
    last_closed_ = -1;
    return {};
  }
  last_closed_ = f.op;
  if (f.op < 0) return {};
  std::string_view loc;
  MlirOp& op = m_.ops[f.op];
  std::string err = parse_closing_tail(tail, line, op, types_, loc);
  if (!err.empty()) return err;
  if (!loc.empty()) locs_[f.op] = OpLoc{loc, line};
  for (auto it = m_.functions.rbegin(); it != m_.functions.rend(); ++it)
    if (it->op == f.op) {
      it->end_op = static_cast<int>(m_.ops.size());
      break;
    }
  return {};
}

namespace {

// Hand-written IR (Triton's lit tests) breaks a long op after a comma, an arrow or a colon.
bool continues_on_next_line(std::string_view t) {
  t = rtrim(t);
  return t.ends_with(',') || t.ends_with("->") || t.ends_with(':');
}

// The lines of one op read as one: each line break and the next line's indentation become a space.
std::string joined_lines(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '\n') {
      out += t[i];
      continue;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\r')) out.pop_back();
    out += ' ';
    while (i + 1 < t.size() && (t[i + 1] == ' ' || t[i + 1] == '\t')) ++i;
  }
  return out;
}

}  // namespace

std::string Parser::op_line(std::string_view t, scan::LineReader& reader, int& line) {
  const int first_line = line;
  const int index = static_cast<int>(m_.ops.size());
  MlirFunction fn;
  OpTextResult r;
  const char* const begin = t.data();
  std::string_view span = t;  // the op's lines in the file
  for (int extra = 0;; ++extra) {
    MlirOp& op = extra == 0 ? m_.ops.emplace_back() : (m_.ops.back() = MlirOp{});
    if (extra > 0) fn = MlirFunction{};
    const bool more = continues_on_next_line(span);
    if (!more) {
      r = parse_op_text(t, first_line, op, types_, &fn);
      if (r.status != OpTextStatus::NeedMore) break;
    }
    std::string_view next;
    if (extra == kMaxContinuationLines || !reader.next(next)) {
      line = first_line;
      return more ? "the op's last line ends with ',', '->' or ':' and no line continues it"
                  : "unbalanced brackets: the op never closes them";
    }
    line = reader.number();
    span = rtrim(std::string_view(begin, static_cast<size_t>(next.data() + next.size() - begin)));
    // Views into the op's text outlive this call (locations): a joined copy is kept by the parser.
    t = span.find('\n') == npos ? span : std::string_view(joined_.emplace_back(joined_lines(span)));
  }
  if (r.status == OpTextStatus::Error) {
    line = first_line;
    return fmt::format("cannot parse op: {}", r.error);
  }
  if (!types_.error.empty()) {
    line = types_.error_line;
    return types_.error;
  }
  MlirOp& op = m_.ops.back();
  op.index = index;
  op.line = first_line;
  op.parent = parent();
  op.depth = depth_;
  if (options_.op_text) op.text = std::string(t);
  for (const std::string& v : op.results) m_.value_defs.try_emplace(v, index);
  if (r.is_function) {
    fn.op = index;
    fn.line = first_line;
    fn.first_op = index + 1;
    fn.end_op = index + 1;
    m_.functions.push_back(std::move(fn));
  }
  locs_.push_back(OpLoc{r.loc, first_line});
  for (int k = 0; k < r.region_opens; ++k) push(index, first_line);
  // `ttg.warp_specialize(...) attributes {...}` puts its `default {` on the next line.
  if (r.region_opens == 0) last_closed_ = index;
  return {};
}

Expected<void> Parser::finish() {
  if (!stack_.empty())
    return error(fmt::format("unbalanced '{{': the region opened here never closes"), stack_.back().line);
  if (!types_.error.empty()) return error(types_.error, types_.error_line);
  std::string err;
  if (int bad = loc_table_.resolve_all(err); bad > 0) return error(err, bad);
  for (size_t i = 0; i < m_.ops.size(); ++i) {
    const OpLoc& l = locs_[i];
    if (l.expr.empty()) continue;
    MlirOp& op = m_.ops[i];
    op.loc_ref.assign(l.expr);
    ResolvedLoc r;
    if (!loc_table_.resolve(l.expr, r, err)) return error(err, l.line);
    if (r.line > 0) op.loc = to_source_loc(r.file, r.line, r.col);
    if (r.cs_line > 0) op.call_site = to_source_loc(r.cs_file, r.cs_line, r.cs_col);
    op.loc_name.assign(r.name);
  }
  // Every '#alias' a type or layout uses must be defined; report the first use in the text.
  const std::pair<const std::string_view, int>* missing = nullptr;
  for (const auto& use : types_.alias_uses)
    if (!aliases_.contains(use.first) && (!missing || use.second < missing->second)) missing = &use;
  if (missing)
    return error(fmt::format("layout alias {} is used but not defined", missing->first), missing->second);
  loc_table_.fill(m_);
  return {};
}

Expected<MlirModule> Parser::run() {
  scan::LineReader reader(text_);
  std::string_view raw;
  while (reader.next(raw)) {
    int line = reader.number();
    std::string_view t = trim(raw);
    if (t.empty() || t.starts_with("//")) continue;
    std::string err;
    const int closed_before = last_closed_;
    last_closed_ = -1;
    if (t.starts_with("{-#")) {  // dialect resources: skip to `#-}`
      while (t.find("#-}") == npos && reader.next(raw)) t = raw;
      continue;
    }
    switch (t[0]) {
      case '#': err = alias_definition(t, line); break;
      case '}': err = closing_line(t, line); break;
      case '^': break;  // block label; its arguments are not ops
      default:
        if (t.starts_with("module") && (t.size() == 6 || t[6] == ' ' || t[6] == '{')) {
          if (size_t a = find_top(t, "attributes {"); a != npos) {
            size_t close = match_close(t, a + 11);
            if (close == npos) return error("unbalanced module attributes", line);
            for_each_dict_entry(t.substr(a + 12, close - a - 12), [&](std::string_view k, std::string_view v) {
              m_.module_attributes.push_back(MlirAttribute{std::string(k), std::string(v)});
            });
          }
          if (rtrim(t).back() == '{') push(-1, line);
        } else if (closed_before >= 0 && is_region_continuation(t)) {
          push(closed_before, line);
        } else {
          err = op_line(t, reader, line);
        }
    }
    if (!err.empty()) return error(std::move(err), line);
  }
  if (auto done = finish(); !done) return std::unexpected(std::move(done.error()));
  return std::move(m_);
}

std::optional<int64_t> int_value(const std::vector<MlirAttribute>& attrs, std::string_view name) {
  for (const MlirAttribute& a : attrs)
    if (a.name == name) return leading_int(a.value);
  return std::nullopt;
}

}  // namespace

Expected<MlirModule> parse_mlir(std::string_view text, Stage stage) {
  return Parser(text, stage, MlirParseOptions{}).run();
}

Expected<MlirModule> parse_mlir(std::string_view text, Stage stage, const MlirParseOptions& options) {
  return Parser(text, stage, options).run();
}

const MlirAttribute* MlirOp::attribute(std::string_view attr_name) const {
  for (const MlirAttribute& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

std::optional<int64_t> MlirOp::int_attribute(std::string_view attr_name) const {
  return int_value(attributes, attr_name);
}

std::optional<int64_t> MlirArgument::int_attribute(std::string_view attr_name) const {
  return int_value(attributes, attr_name);
}

std::optional<int64_t> MlirModule::num_warps() const {
  return int_value(module_attributes, "ttg.num-warps");
}

std::optional<int64_t> MlirModule::threads_per_warp() const {
  return int_value(module_attributes, "ttg.threads-per-warp");
}

std::optional<int64_t> MlirModule::shared_bytes() const {
  return int_value(module_attributes, "ttg.shared");
}

std::string MlirModule::target() const {
  for (const MlirAttribute& a : module_attributes)
    if (a.name == "ttg.target") {
      std::string_view v = trim(a.value);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return std::string(v);
    }
  return {};
}

const MlirOp* MlirModule::defining_op(std::string_view value) const {
  value = value.substr(0, value.find('#'));  // "%acc#0" -> "%acc"
  auto it = value_defs.find(std::string(value));
  return it == value_defs.end() ? nullptr : &ops[it->second];
}

const Layout* MlirModule::layout(std::string_view encoding) const {
  std::string key(trim(encoding));
  if (auto it = layouts.find(key); it != layouts.end()) return &it->second;
  if (auto it = inline_layouts.find(key); it != inline_layouts.end()) return &it->second;
  return nullptr;
}

}  // namespace tdx
