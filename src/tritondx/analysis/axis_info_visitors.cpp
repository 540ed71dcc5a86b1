// The per-op transfer functions of Triton 3.6's AxisInfo analysis (lib/Analysis/AxisInfo.cpp),
// re-implemented over parsed TTIR/TTGIR ops. The visitor set is the one linked into the
// Triton 3.6.0 wheel: casts (extsi/extui/trunci/convert_layout/bitcast/unrealized casts),
// make_range, ub.poison, arith.constant, addptr/addi/subi, muli, div, rem, broadcast,
// splat, expand_dims, cmpi, andi/ori/xori, select, shli/shrui/shrsi, max/min, load, trans.
// Every other op gets the pessimistic state.
// Longer than 500 lines because it keeps Triton's transfer functions together in the order of
// AxisInfo.cpp, one per op, so that each reads against its original; split by op family, that
// one-to-one check would span several files.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numeric>

#include "tritondx/analysis/axis_info_internal.h"
#include "tritondx/core/text.h"

namespace tdx::axis {

// ---- lattice helpers

int64_t gcd(int64_t a, int64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::gcd(a, b);
}
int64_t gcd(int64_t a, int64_t b, int64_t c) { return gcd(gcd(a, b), c); }
int64_t gcd(int64_t a, int64_t b, int64_t c, int64_t d) { return gcd(gcd(a, b, c), d); }

int64_t highest_pow2_divisor(int64_t n) {
  if (n == 0) return kMaxDivisor;
  return static_cast<int64_t>(static_cast<uint64_t>(n) & ~(static_cast<uint64_t>(n) - 1));
}

int64_t multiply_divisor(int64_t lhs, int64_t rhs) {
  if (rhs == 0) return lhs;
  if (lhs > kMaxDivisor / rhs) return kMaxDivisor;
  return lhs * rhs;
}

namespace {
int64_t at(const std::vector<int64_t>& v, int d) {
  return d >= 0 && d < static_cast<int>(v.size()) ? v[static_cast<size_t>(d)] : 1;
}
}  // namespace

int64_t contiguity(const AxisInfo& a, int d) { return at(a.contiguity, d); }
int64_t divisibility(const AxisInfo& a, int d) { return at(a.divisibility, d); }
int64_t constancy(const AxisInfo& a, int d) { return at(a.constancy, d); }

AxisInfo make_info(std::vector<int64_t> ctg, std::vector<int64_t> div, std::vector<int64_t> cst,
                   std::optional<int64_t> constant) {
  AxisInfo a;
  a.contiguity = std::move(ctg);
  a.divisibility = std::move(div);
  a.constancy = std::move(cst);
  a.constant_value = constant;
  return a;
}

AxisInfo pessimistic(int rank) {
  std::vector<int64_t> ones(static_cast<size_t>(std::max(rank, 1)), 1);
  return make_info(ones, ones, ones);
}

AxisInfo optimistic(int rank) {
  std::vector<int64_t> v(static_cast<size_t>(std::max(rank, 1)), kMaxDivisor);
  return make_info(v, v, v);
}

int64_t divisibility_from_contiguity(const AxisInfo& lhs, const AxisInfo& rhs, int d) {
  int64_t cl = contiguity(lhs, d), cr = contiguity(rhs, d);
  if (cl == cr || cl == kMaxDivisor || cr == kMaxDivisor)
    return gcd(divisibility(lhs, d), divisibility(rhs, d));
  return gcd(gcd(divisibility(lhs, d), divisibility(rhs, d)), cl, cr);
}

AxisInfo join(const AxisInfo& lhs, const AxisInfo& rhs) {
  if (lhs.rank() == 0) return rhs;
  if (rhs.rank() == 0) return lhs;
  AxisInfo r;
  int rank = std::min(lhs.rank(), rhs.rank());
  for (int d = 0; d < rank; ++d) {
    r.contiguity.push_back(gcd(contiguity(lhs, d), contiguity(rhs, d)));
    r.divisibility.push_back(divisibility_from_contiguity(lhs, rhs, d));
    r.constancy.push_back(gcd(constancy(lhs, d), constancy(rhs, d)));
  }
  if (lhs.constant_value && rhs.constant_value && *lhs.constant_value == *rhs.constant_value)
    r.constant_value = lhs.constant_value;
  return r;
}

bool same(const AxisInfo& a, const AxisInfo& b) {
  return a.contiguity == b.contiguity && a.divisibility == b.divisibility &&
         a.constancy == b.constancy && a.constant_value == b.constant_value;
}

int lattice_rank(const MlirType& type) {
  if (type.is_tensor && !type.shape.empty()) return static_cast<int>(type.shape.size());
  // A block pointer (`!tt.ptr<tensor<128x64xf16>>`) has its pointee's rank, as in Triton's
  // AxisInfo::getPessimisticValueState.
  if (type.is_pointer && !type.is_tensor && type.pointee.starts_with("tensor<"))
    if (auto pointee = parse_mlir_type(type.pointee); pointee && !pointee->shape.empty())
      return static_cast<int>(pointee->shape.size());
  return 1;
}

int element_type_bits(std::string_view element) {
  MlirType t;
  t.element = std::string(element);
  if (element.starts_with("!tt.ptr<")) t.is_pointer = true;
  if (element == "i1") return 1;
  return t.element_bits();
}

int pointee_bits(const MlirType& type) {
  if (!type.is_pointer) return 0;
  return element_type_bits(type.pointee);
}

bool is_integer_element(std::string_view e) {
  if (e == "index") return true;
  if (e.starts_with("ui") || e.starts_with("si")) e.remove_prefix(1);
  return e.size() >= 2 && e[0] == 'i' && e[1] >= '0' && e[1] <= '9';
}

// ---- hints

namespace {

std::optional<int64_t> parse_int64(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (char c : s.substr(2)) {
      int digit = (c >= '0' && c <= '9') ? c - '0'
                  : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                           : -1;
      if (digit < 0) return std::nullopt;
      v = v * 16 + static_cast<uint64_t>(digit);
    }
  } else {
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
  }
  int64_t r = static_cast<int64_t>(v);
  return neg ? -r : r;
}

// "16 : i32" -> "16"; "dense<16> : tensor<1xi32>" -> "dense<16>", with the type text.
std::pair<std::string_view, std::string_view> split_value_type(std::string_view s) {
  s = trim(s);
  int depth = 0;
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '[' || c == '(' || c == '{') ++depth;
    else if (c == '>' || c == ']' || c == ')' || c == '}') --depth;
    else if (depth == 0 && c == ' ' && s[i + 1] == ':' && s[i + 2] == ' ')
      return {trim(s.substr(0, i)), trim(s.substr(i + 3))};
  }
  return {s, {}};
}

// Numbers inside "dense<...>" or a bare scalar; `count` repeats a splat.
std::optional<std::vector<int64_t>> read_values(std::string_view value, size_t splat_count) {
  value = trim(value);
  std::vector<int64_t> out;
  if (value.starts_with("dense<") && value.ends_with(">")) {
    std::string_view inner = trim(value.substr(6, value.size() - 7));
    if (!inner.empty() && inner[0] == '[') {
      std::string_view list = inner.substr(1, inner.size() >= 2 ? inner.size() - 2 : 0);
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string_view piece = list.substr(start, comma == std::string_view::npos ? list.npos : comma - start);
        piece = trim(piece);
        while (!piece.empty() && (piece.front() == '[')) piece.remove_prefix(1);
        while (!piece.empty() && (piece.back() == ']')) piece.remove_suffix(1);
        auto v = parse_int64(piece);
        if (!v) return std::nullopt;
        out.push_back(*v);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return out;
    }
    auto v = inner == "true" ? std::optional<int64_t>(1) : inner == "false" ? std::optional<int64_t>(0) : parse_int64(inner);
    if (!v) return std::nullopt;
    out.assign(std::max<size_t>(splat_count, 1), *v);
    return out;
  }
  auto v = value == "true" ? std::optional<int64_t>(1) : value == "false" ? std::optional<int64_t>(0) : parse_int64(value);
  if (!v) return std::nullopt;
  out.push_back(*v);
  return out;
}

}  // namespace

std::optional<std::vector<int64_t>> read_hint(const MlirAttribute* attr) {
  if (!attr) return std::nullopt;
  auto [value, type] = split_value_type(attr->value);
  size_t count = 1;
  if (value.starts_with("dense<") && !type.empty()) {
    if (auto t = parse_mlir_type(type); t && t->is_tensor) count = static_cast<size_t>(std::max<int64_t>(t->num_elements(), 1));
  }
  auto v = read_values(value, count);
  if (!v) return std::nullopt;
  // IntegerAttr hints are read zero-extended (getZExtValue); dense ones as int.
  return v;
}

void apply_hints(const MlirOp& op, AxisInfo& info) {
  if (auto h = read_hint(op.attribute("tt.contiguity"))) info.contiguity = *h;
  if (auto h = read_hint(op.attribute("tt.divisibility"))) info.divisibility = *h;
  if (auto h = read_hint(op.attribute("tt.constancy"))) info.constancy = *h;
}

// ---- names

std::vector<std::string> result_names(const MlirOp& op) {
  std::vector<std::string> out;
  if (op.results.size() == 1 && op.result_count > 1) {
    for (int k = 0; k < op.result_count; ++k) out.push_back(op.results[0] + "#" + std::to_string(k));
  } else {
    out = op.results;
  }
  return out;
}

ForRegionArgs parse_for_args(const MlirOp& op) {
  ForRegionArgs r;
  std::string_view t = op.text;
  size_t p = t.find("scf.for");
  if (p == std::string_view::npos) return r;
  p += 7;
  auto read_name = [&](size_t from, size_t& end) -> std::string {
    size_t i = t.find('%', from);
    if (i == std::string_view::npos) return {};
    size_t j = i + 1;
    while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_' || t[j] == '$' || t[j] == '.' || t[j] == '-')) ++j;
    end = j;
    return std::string(t.substr(i, j - i));
  };
  size_t end = 0;
  r.induction_var = read_name(p, end);
  size_t ia = t.find("iter_args(", end);
  if (ia == std::string_view::npos) return r;
  size_t i = ia + 10;
  int depth = 1;
  size_t close = i;
  for (; close < t.size(); ++close) {
    if (t[close] == '(') ++depth;
    else if (t[close] == ')' && --depth == 0) break;
  }
  // Pairs "%a = %x" separated by ", " at depth 0.
  size_t k = i;
  while (k < close) {
    size_t e = 0;
    std::string name = read_name(k, e);
    if (name.empty() || e > close) break;
    r.iter_args.push_back(name);
    // skip " = value"
    size_t comma = k = e;
    int d = 0;
    for (; comma < close; ++comma) {
      char c = t[comma];
      if (c == '(' || c == '<' || c == '[') ++d;
      else if (c == ')' || c == '>' || c == ']') --d;
      else if (c == ',' && d == 0) break;
    }
    k = comma + 1;
  }
  return r;
}

// ---- visitors

namespace {

const std::vector<int64_t>* shape_of(const MlirType* t) {
  return t && t->is_tensor ? &t->shape : nullptr;
}

bool contiguous_dim(const AxisInfo& a, const std::vector<int64_t>& shape, int d) {
  return d < static_cast<int>(shape.size()) && contiguity(a, d) == shape[static_cast<size_t>(d)];
}
bool constant_dim(const AxisInfo& a, const std::vector<int64_t>& shape, int d) {
  return d < static_cast<int>(shape.size()) && constancy(a, d) == shape[static_cast<size_t>(d)];
}

enum class Bin { Add, Sub, AddPtr, Mul, DivS, DivU, RemS, RemU, And, Or, Xor, Shl, ShrU, ShrS };

std::optional<Bin> binary_kind(std::string_view n) {
  if (n == "arith.addi") return Bin::Add;
  if (n == "arith.subi") return Bin::Sub;
  if (n == "tt.addptr") return Bin::AddPtr;
  if (n == "arith.muli") return Bin::Mul;
  if (n == "arith.divsi") return Bin::DivS;
  if (n == "arith.divui") return Bin::DivU;
  if (n == "arith.remsi") return Bin::RemS;
  if (n == "arith.remui") return Bin::RemU;
  if (n == "arith.andi") return Bin::And;
  if (n == "arith.ori") return Bin::Or;
  if (n == "arith.xori") return Bin::Xor;
  if (n == "arith.shli") return Bin::Shl;
  if (n == "arith.shrui") return Bin::ShrU;
  if (n == "arith.shrsi") return Bin::ShrS;
  return std::nullopt;
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t addptr_elem_size(const OpInputs& in) {
  const MlirType* pt = in.types.empty() ? nullptr : in.types[0];
  if (!pt && in.result_type) pt = in.result_type;
  int bits = pt ? pointee_bits(*pt) : 0;
  return std::max<int64_t>(1, bits / 8);
}

std::optional<int64_t> binary_constant(Bin k, const AxisInfo& l, const AxisInfo& r, const OpInputs& in) {
  auto lc = l.constant_value, rc = r.constant_value;
  switch (k) {
    case Bin::Add:
      if (lc && rc) return *lc + *rc;
      return std::nullopt;
    case Bin::Sub:
      if (lc && rc) return *lc - *rc;
      return std::nullopt;
    case Bin::AddPtr:
      if (lc && rc) return *lc + *rc * addptr_elem_size(in);
      return std::nullopt;
    case Bin::Mul:
      if (lc && rc) return *lc * *rc;
      if ((lc && *lc == 0) || (rc && *rc == 0)) return 0;
      return std::nullopt;
    case Bin::DivS:
    case Bin::DivU:
      if (lc && rc && *rc != 0) return *lc / *rc;
      return std::nullopt;
    case Bin::RemS:
    case Bin::RemU:
      if (lc && rc && *rc != 0) return *lc % *rc;
      if (rc && *rc == 1) return 0;
      return std::nullopt;
    case Bin::And:
      if (lc && rc) return *lc & *rc;
      return std::nullopt;
    case Bin::Or:
      if (lc && rc) return *lc | *rc;
      return std::nullopt;
    case Bin::Xor:
      if (lc && rc) return *lc ^ *rc;
      return std::nullopt;
    case Bin::Shl:
      if (lc && rc && *rc >= 0 && *rc < 64) return static_cast<int64_t>(static_cast<uint64_t>(*lc) << *rc);
      return std::nullopt;
    case Bin::ShrU:
    case Bin::ShrS:
      if (lc && rc && *rc >= 0 && *rc < 64) return *lc >> *rc;
      return std::nullopt;
  }
  return std::nullopt;
}

int64_t binary_contiguity(Bin k, const AxisInfo& l, const AxisInfo& r, int d, const std::vector<int64_t>* shape) {
  switch (k) {
    case Bin::Sub:
      return gcd(contiguity(l, d), constancy(r, d));
    case Bin::Add:
    case Bin::AddPtr:
      return std::max(gcd(constancy(l, d), contiguity(r, d)), gcd(contiguity(l, d), constancy(r, d)));
    case Bin::Mul: {
      int64_t lhs = r.constant_value && *r.constant_value == 1 ? contiguity(l, d) : 1;
      int64_t rhs = l.constant_value && *l.constant_value == 1 ? contiguity(r, d) : 1;
      return std::max(lhs, rhs);
    }
    case Bin::DivS:
    case Bin::DivU:
      return r.constant_value && *r.constant_value == 1 ? contiguity(l, d) : 1;
    case Bin::RemS:
    case Bin::RemU:
      if (!shape) return 1;
      if (contiguous_dim(l, *shape, d) && constant_dim(r, *shape, d))
        return gcd(contiguity(l, d), divisibility(l, d), divisibility(r, d));
      return 1;
    case Bin::Shl:
    case Bin::ShrU:
    case Bin::ShrS:
      return r.constant_value && *r.constant_value == 0 ? contiguity(l, d) : 1;
    case Bin::And:
    case Bin::Or:
    case Bin::Xor:
      return 1;
  }
  return 1;
}

int64_t binary_divisibility(Bin k, const AxisInfo& l, const AxisInfo& r, int d, const OpInputs& in) {
  switch (k) {
    case Bin::Add:
    case Bin::Sub:
      return gcd(divisibility(l, d), divisibility(r, d));
    case Bin::AddPtr:
      return gcd(divisibility(l, d), multiply_divisor(divisibility(r, d), addptr_elem_size(in)));
    case Bin::Mul: {
      int64_t ld = divisibility(l, d);
      if (contiguity(l, d) > 1 && r.constant_value != std::optional<int64_t>(1)) ld = 1;
      int64_t rd = divisibility(r, d);
      if (contiguity(r, d) > 1 && l.constant_value != std::optional<int64_t>(1)) rd = 1;
      return multiply_divisor(ld, rd);
    }
    case Bin::DivS:
    case Bin::DivU:
      if (l.constant_value && *l.constant_value == 0) return divisibility(l, d);
      if (r.constant_value && *r.constant_value == 1) return divisibility(l, d);
      if (r.constant_value && is_pow2(std::llabs(*r.constant_value)) && contiguity(l, d) == 1)
        return std::max<int64_t>(1, divisibility(l, d) / std::llabs(*r.constant_value));
      return 1;
    case Bin::RemS:
    case Bin::RemU:
      if (constancy(r, d) > 1) return gcd(divisibility(l, d), divisibility(r, d));
      return 1;
    case Bin::Shl: {
      int64_t shift = r.constant_value.value_or(0);
      int64_t ld = divisibility(l, d);
      if (contiguity(l, d) > 1 && shift) ld = 1;
      if (shift < 0 || shift >= 62) return kMaxDivisor;
      return multiply_divisor(ld, int64_t(1) << shift);
    }
    case Bin::ShrU:
    case Bin::ShrS: {
      if (!r.constant_value) return 1;
      int64_t shift = *r.constant_value;
      int64_t ld = divisibility(l, d);
      if (contiguity(l, d) > 1 && shift) ld = 1;
      if (shift < 0 || shift >= 63) return 1;
      return std::max<int64_t>(1, ld / (int64_t(1) << shift));
    }
    case Bin::And:
    case Bin::Or:
    case Bin::Xor:
      return 1;
  }
  return 1;
}

int64_t binary_constancy(Bin k, const AxisInfo& l, const AxisInfo& r, int d, const std::vector<int64_t>* shape) {
  int64_t c = gcd(constancy(l, d), constancy(r, d));
  if (!shape) return c;
  if (k == Bin::DivS || k == Bin::DivU) {
    if (contiguous_dim(l, *shape, d) && constant_dim(r, *shape, d))
      c = std::max(c, gcd(contiguity(l, d), divisibility(l, d), divisibility(r, d)));
  } else if (k == Bin::RemS || k == Bin::RemU) {
    if (r.constant_value && *r.constant_value == 1 && d < static_cast<int>(shape->size()))
      return (*shape)[static_cast<size_t>(d)];
  }
  return c;
}

AxisInfo visit_binary(Bin k, const OpInputs& in) {
  const AxisInfo& l = *in.infos[0];
  const AxisInfo& r = *in.infos[1];
  int rank = l.rank();
  const std::vector<int64_t>* shape = shape_of(in.result_type);
  if (auto cv = binary_constant(k, l, r, in)) {
    std::vector<int64_t> cst = shape ? *shape : std::vector<int64_t>(static_cast<size_t>(rank), 1);
    return make_info(std::vector<int64_t>(static_cast<size_t>(rank), 1),
                     std::vector<int64_t>(static_cast<size_t>(rank), highest_pow2_divisor(*cv)), cst, cv);
  }
  AxisInfo out;
  for (int d = 0; d < rank; ++d) {
    out.contiguity.push_back(binary_contiguity(k, l, r, d, shape));
    out.constancy.push_back(binary_constancy(k, l, r, d, shape));
    out.divisibility.push_back(binary_divisibility(k, l, r, d, in));
  }
  return out;
}

std::optional<AxisInfo> visit_constant(const MlirOp& op, const OpInputs& in) {
  const MlirAttribute* a = op.attribute("value");
  if (!a) return std::nullopt;
  auto [value, type_text] = split_value_type(a->value);
  std::string element;
  const MlirType* rt = in.result_type;
  MlirType parsed;
  if (!rt && !type_text.empty()) {
    if (auto t = parse_mlir_type(type_text)) parsed = *t, rt = &parsed;
  }
  if (rt) element = rt->element;
  bool is_bool_literal = value == "true" || value == "false" || value == "dense<true>" || value == "dense<false>";
  if (element.empty() && is_bool_literal) element = "i1";
  if (!is_integer_element(element)) return std::nullopt;
  if (value.starts_with("dense<") && value.size() > 7 && trim(value.substr(6)).starts_with("[")) return std::nullopt;
  auto vals = read_values(value, 1);
  if (!vals || vals->empty()) return std::nullopt;
  int64_t v = (*vals)[0];
  int bits = element == "index" ? 64 : element == "i1" ? 1 : element_type_bits(element);
  if (bits > 0 && bits < 64) v = static_cast<int64_t>(static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1));
  if (rt && rt->is_tensor) {
    int rank = lattice_rank(*rt);
    return make_info(std::vector<int64_t>(static_cast<size_t>(rank), 1),
                     std::vector<int64_t>(static_cast<size_t>(rank), highest_pow2_divisor(v)), rt->shape, v);
  }
  return make_info({1}, {highest_pow2_divisor(v)}, {1}, v);
}

bool pred_is(std::string_view p, std::string_view a, std::string_view b) { return p == a || p == b; }

std::optional<int64_t> compare(std::string_view p, int64_t l, int64_t r) {
  auto ul = static_cast<uint64_t>(l), ur = static_cast<uint64_t>(r);
  if (p == "eq") return l == r;
  if (p == "ne") return l != r;
  if (p == "slt") return l < r;
  if (p == "sle") return l <= r;
  if (p == "sgt") return l > r;
  if (p == "sge") return l >= r;
  if (p == "ult") return ul < ur;
  if (p == "ule") return ul <= ur;
  if (p == "ugt") return ul > ur;
  if (p == "uge") return ul >= ur;
  return std::nullopt;
}

std::optional<AxisInfo> visit_cmpi(const MlirOp& op, const OpInputs& in) {
  const std::vector<int64_t>* shape = shape_of(in.result_type);
  if (!shape) return std::nullopt;  // scalar compare: no visitor result -> pessimistic
  const AxisInfo& l = *in.infos[0];
  const AxisInfo& r = *in.infos[1];
  std::string pred;
  if (const MlirAttribute* a = op.attribute("predicate")) pred = a->value;
  AxisInfo out;
  int rank = static_cast<int>(shape->size());
  for (int d = 0; d < rank; ++d) {
    int64_t hint;
    if (l.constant_value && r.constant_value) {
      hint = (*shape)[static_cast<size_t>(d)];
      if (auto c = compare(pred, *l.constant_value, *r.constant_value)) out.constant_value = *c ? 1 : 0;
    } else {
      hint = gcd(constancy(l, d), constancy(r, d));
      if ((pred_is(pred, "sgt", "ugt") || pred_is(pred, "sle", "ule")) && constant_dim(l, *shape, d)) {
        hint = std::max(hint, gcd(contiguity(r, d), divisibility(l, d), divisibility(r, d)));
      } else if ((pred_is(pred, "slt", "ult") || pred_is(pred, "sge", "uge")) && constant_dim(r, *shape, d)) {
        hint = std::max(hint, gcd(contiguity(l, d), divisibility(l, d), divisibility(r, d)));
      }
    }
    out.constancy.push_back(hint);
    out.divisibility.push_back(1);
    out.contiguity.push_back(1);
  }
  return out;
}

AxisInfo visit_select(const OpInputs& in) {
  const AxisInfo& c = *in.infos[0];
  const AxisInfo& l = *in.infos[1];
  const AxisInfo& r = *in.infos[2];
  int rank = l.rank();
  AxisInfo out;
  if (c.constant_value) {
    out = *c.constant_value == 0 ? r : l;
    return out;
  }
  bool i1_cond = !(in.types[0] && in.types[0]->is_tensor);
  for (int d = 0; d < rank; ++d) {
    if (i1_cond) {
      out.constancy.push_back(gcd(constancy(l, d), constancy(r, d)));
      out.divisibility.push_back(divisibility_from_contiguity(l, r, d));
      out.contiguity.push_back(gcd(contiguity(l, d), contiguity(r, d)));
    } else {
      out.constancy.push_back(gcd(constancy(l, d), constancy(r, d), constancy(c, d)));
      out.contiguity.push_back(gcd(contiguity(l, d), contiguity(r, d), constancy(c, d)));
      out.divisibility.push_back(divisibility_from_contiguity(l, r, d));
    }
  }
  if (l.constant_value && r.constant_value && *l.constant_value == *r.constant_value) {
    out.constant_value = l.constant_value;
    const std::vector<int64_t>* shape = shape_of(in.result_type);
    out.constancy = shape ? *shape : std::vector<int64_t>(static_cast<size_t>(rank), 1);
  }
  return out;
}

AxisInfo visit_maxmin(std::string_view name, const OpInputs& in) {
  const AxisInfo& l = *in.infos[0];
  const AxisInfo& r = *in.infos[1];
  int rank = l.rank();
  if (l.constant_value && r.constant_value) {
    bool is_max = name.find("max") != std::string_view::npos;
    int64_t v = is_max ? std::max(*l.constant_value, *r.constant_value) : std::min(*l.constant_value, *r.constant_value);
    const std::vector<int64_t>* shape = shape_of(in.result_type);
    std::vector<int64_t> cst = shape ? *shape : std::vector<int64_t>(static_cast<size_t>(rank), 1);
    return make_info(std::vector<int64_t>(static_cast<size_t>(rank), 1),
                     std::vector<int64_t>(static_cast<size_t>(rank), highest_pow2_divisor(v)), cst, v);
  }
  AxisInfo out;
  for (int d = 0; d < rank; ++d) {
    out.constancy.push_back(gcd(constancy(l, d), constancy(r, d)));
    out.divisibility.push_back(divisibility_from_contiguity(l, r, d));
    out.contiguity.push_back(gcd(contiguity(l, d), contiguity(r, d)));
  }
  return out;
}

std::optional<AxisInfo> visit_splat(const OpInputs& in) {
  const std::vector<int64_t>* shape = shape_of(in.result_type);
  if (!shape) return std::nullopt;
  const AxisInfo& s = *in.infos[0];
  AxisInfo out;
  for (int64_t dim : *shape) {
    out.contiguity.push_back(1);
    out.divisibility.push_back(divisibility(s, 0));
    out.constancy.push_back(dim);
  }
  out.constant_value = s.constant_value;
  return out;
}

std::optional<AxisInfo> visit_broadcast(const OpInputs& in) {
  const std::vector<int64_t>* shape = shape_of(in.result_type);
  const std::vector<int64_t>* src = shape_of(in.types[0]);
  if (!shape || !src || src->size() != shape->size()) return std::nullopt;
  const AxisInfo& s = *in.infos[0];
  AxisInfo out;
  for (size_t d = 0; d < shape->size(); ++d) {
    int dd = static_cast<int>(d);
    out.contiguity.push_back((*src)[d] == 1 ? 1 : contiguity(s, dd));
    out.divisibility.push_back(divisibility(s, dd));
    out.constancy.push_back((*src)[d] == 1 ? (*shape)[d] : constancy(s, dd));
  }
  out.constant_value = s.constant_value;
  return out;
}

std::optional<AxisInfo> visit_expand_dims(const MlirOp& op, const OpInputs& in) {
  auto axis = op.int_attribute("axis");
  if (!axis) return std::nullopt;
  const AxisInfo& s = *in.infos[0];
  AxisInfo out = s;
  out.constant_value = s.constant_value;
  int64_t div = 1;
  if (s.constant_value) {
    div = highest_pow2_divisor(*s.constant_value);
  } else if (s.rank() > 0) {
    div = contiguity(s, 0) > 1 ? 1 : divisibility(s, 0);
    for (int d = 1; d < s.rank(); ++d) div = gcd(div, contiguity(s, d) > 1 ? 1 : divisibility(s, d));
  }
  size_t pos = static_cast<size_t>(std::clamp<int64_t>(*axis, 0, s.rank()));
  out.contiguity.insert(out.contiguity.begin() + static_cast<long>(pos), 1);
  out.divisibility.insert(out.divisibility.begin() + static_cast<long>(pos), div);
  out.constancy.insert(out.constancy.begin() + static_cast<long>(pos), 1);
  return out;
}

std::optional<AxisInfo> visit_trans(const MlirOp& op, const OpInputs& in) {
  const MlirAttribute* a = op.attribute("order");
  if (!a) return std::nullopt;
  auto order = read_values(std::string("dense<") + a->value + ">", 1);
  if (!order) {
    // "array<i32: 1, 0>"
    std::string_view v = a->value;
    size_t colon = v.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string list = "dense<[" + std::string(v.substr(colon + 1, v.size() - colon - 2)) + "]>";
    order = read_values(list, 1);
    if (!order) return std::nullopt;
  }
  const AxisInfo& s = *in.infos[0];
  AxisInfo out;
  for (int64_t src : *order) {
    int sd = static_cast<int>(src);
    out.contiguity.push_back(contiguity(s, sd));
    out.divisibility.push_back(divisibility(s, sd));
    out.constancy.push_back(constancy(s, sd));
  }
  out.constant_value = s.constant_value;
  return out;
}

AxisInfo visit_load(const OpInputs& in) {
  const AxisInfo& p = *in.infos[0];
  const AxisInfo* m = in.infos.size() > 1 ? in.infos[1] : nullptr;
  AxisInfo out;
  for (int d = 0; d < p.rank(); ++d) {
    out.contiguity.push_back(1);
    out.divisibility.push_back(1);
    out.constancy.push_back(gcd(constancy(p, d), m ? constancy(*m, d) : 0));
  }
  return out;
}

}  // namespace

std::optional<AxisInfo> visit(const MlirOp& op, const OpInputs& in) {
  std::string_view n = op.name;
  size_t nops = in.infos.size();
  if (n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci" || n == "ttg.convert_layout" ||
      n == "tt.bitcast" || n == "gluon.set_auto_layout") {
    if (nops < 1) return std::nullopt;
    return *in.infos[0];
  }
  if (n == "builtin.unrealized_conversion_cast") {
    if (nops < 1) return std::nullopt;
    if (in.result_type && in.result_type->is_tensor && lattice_rank(*in.result_type) != in.infos[0]->rank())
      return pessimistic(lattice_rank(*in.result_type));
    return *in.infos[0];
  }
  if (n == "tt.make_range") {
    auto start = op.int_attribute("start"), end = op.int_attribute("end");
    if (!start || !end) return std::nullopt;
    // start/end are i32 attributes read as uint32: highestPowOf2Divisor<uint32_t>(0) = 2^30.
    int64_t div = *start == 0 ? (int64_t(1) << 30) : highest_pow2_divisor(*start);
    return make_info({*end - *start}, {div}, {1});
  }
  if (n == "ub.poison") return optimistic(in.result_type ? lattice_rank(*in.result_type) : 1);
  if (n == "arith.constant") return visit_constant(op, in);
  if (auto k = binary_kind(n)) {
    if (nops < 2) return std::nullopt;
    return visit_binary(*k, in);
  }
  if (n == "tt.broadcast") return nops >= 1 ? visit_broadcast(in) : std::nullopt;
  if (n == "tt.splat") return nops >= 1 ? visit_splat(in) : std::nullopt;
  if (n == "tt.expand_dims") return nops >= 1 ? visit_expand_dims(op, in) : std::nullopt;
  if (n == "arith.cmpi") return nops >= 2 ? visit_cmpi(op, in) : std::nullopt;
  if (n == "arith.select") return nops >= 3 ? std::optional<AxisInfo>(visit_select(in)) : std::nullopt;
  if (n == "arith.maxsi" || n == "arith.maxui" || n == "arith.minsi" || n == "arith.minui")
    return nops >= 2 ? std::optional<AxisInfo>(visit_maxmin(n, in)) : std::nullopt;
  if (n == "tt.load") return nops >= 1 ? std::optional<AxisInfo>(visit_load(in)) : std::nullopt;
  if (n == "tt.trans") return nops >= 1 ? visit_trans(op, in) : std::nullopt;
  return std::nullopt;
}

}  // namespace tdx::axis
