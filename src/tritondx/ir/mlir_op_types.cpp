// Operand and result types of ops: the forms `: t`, `: a, b`, `: (a, b) -> c`, `: a -> b`,
// `: a * b -> c`, `: a to b`, plus the ops whose printed type is not their operands' (tt.load,
// tt.store, arith.cmpi, ...). Type texts are parsed once each through TypeContext.
#include <algorithm>

#include "tritondx/ir/mlir_internal.h"
#include "tritondx/ir/mlir_syntax.h"

namespace tdx::mlir_detail {

namespace {

using namespace mlir_syntax;

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
  e = std::min(e, t.size());
  b = std::min(b, e);  // an arrow at the very end of the text ("%x : -> ") has nothing after it
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

// What a load through `ptr` yields: its pointee at the pointer tensor's shape, or for a block
// pointer (`!tt.ptr<tensor<128x64xf16>>`) the pointee tensor itself.
MlirType loaded_type(const MlirType& ptr, TypeContext& tc, int line) {
  if (ptr.is_pointer && !ptr.is_tensor && ptr.pointee.starts_with("tensor<")) return tc.get(ptr.pointee, line);
  return ptr.is_pointer ? ptr.with_element(ptr.pointee) : ptr;
}

}  // namespace

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

void type_list(std::string_view s, std::vector<MlirType>& out, TypeContext& tc, int line) {
  TypeRefs refs;
  for_each_top(s, ',', [&](std::string_view p) { expand_piece(p, refs, tc, line); });
  refs.append_to(out);
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
    if (mk.star != npos && mk.star + 3 <= arrow) {  // dot: a * b -> c
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
    MlirType loaded = loaded_type(first, tc, line);
    op.operand_types.push_back(first);
    if (n_operands >= 2) op.operand_types.push_back(first.with_element("i1"));
    if (n_operands >= 3) op.operand_types.push_back(loaded);
    op.result_types.push_back(std::move(loaded));
    return;
  }
  if (name == "tt.store") {
    op.operand_types.push_back(first);
    if (n_operands >= 2) op.operand_types.push_back(loaded_type(first, tc, line));
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

}  // namespace tdx::mlir_detail
