// MLIR types as Triton prints them: tensors, memdescs, tensor descriptors, pointers, scalars.
#include <fmt/format.h>

#include "tritondx/ir/mlir.h"
#include "tritondx/ir/mlir_syntax.h"

namespace tdx {

namespace {

using namespace mlir_syntax;

// Parses "128x64xf16, #blocked, ..." (the inside of tensor<>/memdesc<>/vector<>): leading
// dimensions, the element, then the first parameter after it as the encoding.
bool parse_shaped(std::string_view inside, MlirType& t) {
  std::string_view s = ltrim(inside);
  for (;;) {
    size_t i = 0;
    if (!s.empty() && s[0] == '?') i = 1;
    else
      while (i < s.size() && is_digit(s[i])) ++i;
    if (i == 0 || i >= s.size() || s[i] != 'x') break;
    int64_t dim = -1;
    if (s[0] != '?') dim = *scan::parse_int<int64_t>(s.substr(0, i));
    t.shape.push_back(dim);
    s.remove_prefix(i + 1);
  }
  size_t comma = find_top(s, ",");
  std::string_view element = trim(s.substr(0, comma));
  if (element.empty()) return false;
  t.element = std::string(element);
  if (comma != npos) {
    std::string_view rest = s.substr(comma + 1);
    size_t next = find_top(rest, ",");
    t.encoding = std::string(trim(rest.substr(0, next)));
  }
  return true;
}

// The inside of "prefix<...>" when s is exactly that, else npos-marked empty.
bool angle_inside(std::string_view s, size_t lt, std::string_view& inside) {
  size_t gt = match_close(s, lt);
  if (gt == npos || gt + 1 != s.size()) return false;
  inside = s.substr(lt + 1, gt - lt - 1);
  return true;
}

void set_pointer(MlirType& t) {
  std::string_view e = t.element;
  if (!e.starts_with("!tt.ptr<")) return;
  std::string_view inside;
  if (!angle_inside(e, e.find('<'), inside)) return;
  t.is_pointer = true;
  t.pointee = std::string(trim(inside.substr(0, find_top(inside, ","))));  // drop address space
}

}  // namespace

Expected<MlirType> parse_mlir_type(std::string_view text) {
  std::string_view s = trim(text);
  MlirType t;
  if (s.empty()) return fail(Stage::Ttgir, "empty type");
  t.text = std::string(s);
  std::string_view inside;
  auto bad = [&] { return fail(Stage::Ttgir, fmt::format("malformed type '{}'", s)); };

  // `<tensor<128x64xf16>>`: tt.make_tensor_ptr and tt.advance print their block pointer type
  // without its `!tt.ptr` prefix.
  if (s.starts_with("<tensor<")) return parse_mlir_type("!tt.ptr" + std::string(s));
  if (s.starts_with("tensor<") || s.starts_with("vector<") || s.starts_with("!ttg.memdesc<") ||
      s[0] == '<') {
    // `<128x64xf16, #shared, #smem, mutable>`: a memdesc printed without its prefix.
    if (!angle_inside(s, s.find('<'), inside) || !parse_shaped(inside, t)) return bad();
    t.is_tensor = s.starts_with("tensor<");
    if (s[0] == '<') t.text = "!ttg.memdesc" + t.text;
    set_pointer(t);
    return t;
  }
  if (s.starts_with("!tt.tensordesc<")) {
    if (!angle_inside(s, s.find('<'), inside)) return bad();
    auto block = parse_mlir_type(inside);
    if (!block) return bad();
    t.shape = std::move(block->shape);
    t.element = std::move(block->element);
    t.encoding = std::move(block->encoding);
    return t;
  }
  // Balanced brackets for everything else (`!tt.ptr<f16>`, `!llvm.struct<(i32, i32)>`).
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      size_t j = skip_string(s, i);
      if (j == npos) return bad();
      i = j - 1;
    } else if (is_open(s[i])) {
      size_t j = match_close(s, i);
      if (j == npos) return bad();
      i = j;
    } else if (is_close_at(s, i)) {
      return bad();
    }
  }
  t.element = t.text;
  set_pointer(t);
  return t;
}

int MlirType::element_bits() const {
  if (is_pointer) return 64;
  std::string_view e = element;
  if (e == "f16" || e == "bf16") return 16;
  if (e == "f32" || e == "tf32") return 32;
  if (e == "f64" || e == "index") return 64;
  if (e.starts_with("f8E")) return 8;
  if (e.starts_with("f6E")) return 6;
  if (e.starts_with("f4E")) return 4;
  if (e.starts_with("ui") || e.starts_with("si")) e.remove_prefix(1);
  if (e.size() >= 2 && (e[0] == 'i' || e[0] == 'f') && is_digit(e[1])) {
    auto bits = scan::parse_int<int>(e.substr(1));
    return bits ? *bits : 0;
  }
  return 0;
}

int64_t MlirType::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return 0;
    n *= d;
  }
  return n;
}

MlirType MlirType::with_element(std::string_view new_element) const {
  std::string text;
  if (is_tensor) {
    text = "tensor<";
    for (int64_t d : shape) {
      if (d < 0) text += '?';
      else fmt::format_to(std::back_inserter(text), "{}", d);
      text += 'x';
    }
    text += new_element;
    if (!encoding.empty()) {
      text += ", ";
      text += encoding;
    }
    text += '>';
  } else {
    text = std::string(new_element);
  }
  auto t = parse_mlir_type(text);
  if (t) return std::move(*t);
  MlirType fallback;
  fallback.text = std::move(text);
  fallback.element = std::string(new_element);
  return fallback;
}

}  // namespace tdx
