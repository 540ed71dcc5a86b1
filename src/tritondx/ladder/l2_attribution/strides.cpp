#include "tritondx/ladder/l2_attribution/strides.h"

#include <algorithm>
#include <set>

namespace tdx::l2 {

namespace {

constexpr int kMaxDepth = 48;

std::optional<int64_t> parse_splat_constant(const MlirOp& op) {
  // arith.constant dense<16> : tensor<...>  /  arith.constant 16 : i32
  const auto* v = op.attribute("value");
  if (!v) return std::nullopt;
  std::string_view s = v->value;
  if (s.starts_with("dense<")) {
    s.remove_prefix(6);
    size_t e = s.find('>');
    if (e == std::string_view::npos) return std::nullopt;
    s = s.substr(0, e);
  }
  size_t colon = s.find(" :");
  if (colon != std::string_view::npos) s = s.substr(0, colon);
  if (s.empty() || s.find_first_not_of("-0123456789") != std::string_view::npos) return std::nullopt;
  try {
    return std::stoll(std::string(s));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

size_t rank_of(const MlirOp& op) {
  return op.result_types.empty() || !op.result_types[0].is_tensor ? 0 : op.result_types[0].shape.size();
}

}  // namespace

bool Strides::all_known() const {
  for (auto s : per_dim)
    if (s == kUnknownStride) return false;
  return true;
}

bool Strides::uniform() const {
  for (auto s : per_dim)
    if (s != 0) return false;
  return true;
}

StrideAnalysis::StrideAnalysis(const IrView& ir) : ir_(ir) {
  for (const auto& op : ir.ttgir().ops) {
    if (op.name != "scf.for") continue;
    for (const auto& [arg, init] : for_arguments(op).iter) iter_init_[arg] = init;
  }
}

Strides StrideAnalysis::of(const std::string& value) { return compute(value, 0); }

std::string StrideAnalysis::root_pointer(const std::string& value) const {
  std::string v = value;
  for (int i = 0; i < kMaxDepth; ++i) {
    if (auto it = iter_init_.find(v); it != iter_init_.end()) {
      v = it->second;
      continue;
    }
    const MlirOp* op = ir_.def(v);
    if (!op) {
      for (const auto& f : ir_.ttgir().functions)
        for (const auto& a : f.arguments)
          if (a.name == v) return v;
      return {};
    }
    if (op->operands.empty()) return {};
    if (op->name == "tt.addptr" || op->name == "tt.splat" || op->name == "tt.broadcast" ||
        op->name == "tt.expand_dims" || op->name == "ttg.convert_layout" || op->name == "tt.trans" ||
        op->name == "tt.reshape") {
      v = op->operands[0];
      continue;
    }
    return {};
  }
  return {};
}

std::optional<int64_t> StrideAnalysis::uniform_value(const std::string& value, int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  const MlirOp* op = ir_.def(value);
  if (!op) return ir_.scalar(value);
  if (op->name == "arith.constant") return parse_splat_constant(*op);
  if (op->name == "tt.splat" && !op->operands.empty()) return ir_.scalar(op->operands[0]);
  if ((op->name == "tt.broadcast" || op->name == "tt.expand_dims" || op->name == "ttg.convert_layout") &&
      !op->operands.empty())
    return uniform_value(op->operands[0], depth + 1);
  if (rank_of(*op) == 0) return ir_.scalar(value);
  return std::nullopt;
}

Strides StrideAnalysis::compute(const std::string& value_in, int depth) {
  std::string value = value_in;
  if (auto it = cache_.find(value); it != cache_.end()) return it->second;
  Strides out;
  auto finish = [&](Strides s) {
    cache_[value] = s;
    return s;
  };
  if (depth > kMaxDepth) return out;
  if (auto it = iter_init_.find(value); it != iter_init_.end()) {
    cache_[value] = Strides{};  // cycle guard
    return finish(compute(it->second, depth + 1));
  }
  const MlirOp* op = ir_.def(value);
  if (!op) return finish(out);
  const size_t rank = rank_of(*op);
  if (rank == 0) return finish(out);
  auto unknown = [&] { return Strides{std::vector<int64_t>(rank, kUnknownStride)}; };
  auto zeros = [&] { return Strides{std::vector<int64_t>(rank, 0)}; };
  auto sub = [&](size_t i) { return i < op->operands.size() ? compute(op->operands[i], depth + 1) : Strides{}; };
  const std::string& n = op->name;

  if (n == "tt.make_range") return finish(Strides{{1}});
  if (n == "arith.constant") return finish(parse_splat_constant(*op) ? zeros() : unknown());
  if (n == "tt.splat") return finish(zeros());
  if (n == "tt.expand_dims") {
    Strides s = sub(0);
    auto axis = op->int_attribute("axis").value_or(0);
    if (s.per_dim.size() + 1 != rank) return finish(unknown());
    s.per_dim.insert(s.per_dim.begin() + std::clamp<int64_t>(axis, 0, static_cast<int64_t>(s.per_dim.size())), 0);
    return finish(s);
  }
  if (n == "tt.broadcast") {
    Strides s = sub(0);
    if (s.per_dim.size() != rank) return finish(unknown());
    if (!op->operand_types.empty() && op->operand_types[0].shape.size() == rank)
      for (size_t d = 0; d < rank; ++d)
        if (op->operand_types[0].shape[d] == 1) s.per_dim[d] = 0;
    return finish(s);
  }
  if (n == "ttg.convert_layout" || n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci" ||
      n == "arith.index_cast" || n == "tt.int_to_ptr" || n == "tt.ptr_to_int" || n == "tt.bitcast") {
    Strides s = sub(0);
    return finish(s.per_dim.size() == rank ? s : unknown());
  }
  if (n == "tt.trans") {
    Strides s = sub(0);
    const auto* order = op->attribute("order");
    if (!order || s.per_dim.size() != rank) return finish(unknown());
    std::vector<int64_t> perm;
    std::string digits;
    for (char c : order->value) {
      if (c >= '0' && c <= '9') digits += c;
      else if (!digits.empty()) perm.push_back(std::stoll(digits)), digits.clear();
    }
    if (!digits.empty()) perm.push_back(std::stoll(digits));
    if (perm.size() != rank) return finish(unknown());
    Strides t{std::vector<int64_t>(rank, kUnknownStride)};
    for (size_t d = 0; d < rank; ++d) t.per_dim[d] = s.per_dim[static_cast<size_t>(perm[d])];
    return finish(t);
  }
  if (n == "arith.addi" || n == "tt.addptr" || n == "arith.subi") {
    Strides a = sub(0), b = sub(1);
    if (a.per_dim.size() != rank || b.per_dim.size() != rank) return finish(unknown());
    Strides s = zeros();
    for (size_t d = 0; d < rank; ++d) {
      if (a.per_dim[d] == kUnknownStride || b.per_dim[d] == kUnknownStride) s.per_dim[d] = kUnknownStride;
      else s.per_dim[d] = n == "arith.subi" ? a.per_dim[d] - b.per_dim[d] : a.per_dim[d] + b.per_dim[d];
    }
    return finish(s);
  }
  if (n == "arith.muli" || n == "arith.shli") {
    Strides a = sub(0), b = sub(1);
    if (a.per_dim.size() != rank || b.per_dim.size() != rank) return finish(unknown());
    if (a.uniform() && b.uniform()) return finish(zeros());
    std::optional<int64_t> k;
    Strides* var = nullptr;
    if (b.uniform()) {
      k = uniform_value(op->operands[1], depth + 1);
      var = &a;
    } else if (a.uniform() && n == "arith.muli") {
      k = uniform_value(op->operands[0], depth + 1);
      var = &b;
    }
    if (!k || !var) return finish(unknown());
    int64_t factor = n == "arith.shli" ? (*k >= 0 && *k < 62 ? (int64_t{1} << *k) : 0) : *k;
    Strides s = *var;
    for (auto& v : s.per_dim)
      if (v != kUnknownStride) v *= factor;
    return finish(s);
  }
  // Anything else: uniform if every tensor operand is uniform, unknown otherwise.
  bool all_uniform = !op->operands.empty() && n != "tt.load";
  for (size_t i = 0; i < op->operands.size() && all_uniform; ++i) {
    const MlirOp* d = ir_.def(op->operands[i]);
    if (d && rank_of(*d) == 0) continue;
    if (!d && !iter_init_.count(op->operands[i])) continue;  // a scalar argument
    all_uniform = sub(i).uniform();
  }
  return finish(all_uniform ? zeros() : unknown());
}

std::vector<std::vector<int64_t>> warp_lane_coordinates(const Layout& l, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  std::vector<std::vector<int64_t>> lanes;
  if (l.threads_per_warp.size() != rank || l.size_per_thread.size() != rank) return lanes;
  std::vector<int64_t> order = l.order;
  if (order.size() != rank) {
    order.clear();
    for (size_t d = rank; d-- > 0;) order.push_back(static_cast<int64_t>(d));
  }
  for (int lane = 0; lane < 32; ++lane) {
    std::vector<int64_t> c(rank, 0);
    int rem = lane;
    for (int64_t d : order) {
      auto du = static_cast<size_t>(d);
      int64_t t = rem % std::max<int64_t>(l.threads_per_warp[du], 1);
      rem /= static_cast<int>(std::max<int64_t>(l.threads_per_warp[du], 1));
      c[du] = (t * l.size_per_thread[du]) % std::max<int64_t>(shape[du], 1);
    }
    lanes.push_back(std::move(c));
  }
  return lanes;
}

SectorUse warp_sectors(const Layout& l, const std::vector<int64_t>& shape, const Strides& s, int elem_bytes) {
  SectorUse u;
  auto lanes = warp_lane_coordinates(l, shape);
  if (lanes.empty() || s.per_dim.size() != shape.size() || !s.all_known()) return u;
  const size_t fast = l.order.empty() ? shape.size() - 1 : static_cast<size_t>(l.order[0]);
  const int64_t chunk = std::min(l.size_per_thread[fast], shape[fast]);
  std::set<int64_t> sectors;
  std::set<int64_t> elements;  // distinct element addresses (same address = broadcast)
  for (const auto& c : lanes) {
    int64_t base = 0;
    for (size_t d = 0; d < c.size(); ++d) base += s.per_dim[d] * c[d] * elem_bytes;
    for (int64_t j = 0; j < chunk; ++j) {
      int64_t addr = base + j * s.per_dim[fast] * elem_bytes;
      if (!elements.insert(addr).second) continue;
      for (int64_t b : {addr, addr + elem_bytes - 1}) sectors.insert(b >= 0 ? b / 32 : (b - 31) / 32);
    }
  }
  u.sectors = static_cast<int>(sectors.size());
  u.useful_bytes = static_cast<int64_t>(elements.size()) * elem_bytes;
  return u;
}

}  // namespace tdx::l2
