// The vector width of every global memory op, as Triton 3.6 picks it from the AxisInfo
// lattice, and the op on the pointer's or mask's def chain where the limiting property was
// lost.
//
// TTGIR (the layout is final): LoadStoreOpToLLVM's rule
//   alignment = min(max(divisibility_bytes[o0] / elem_bytes, 1), contiguity[o0])
//   vec       = min(128 / bits, min(alignment, contigPerThread[o0] of the layout))
//   vec       = min(vec, max(constancy of the mask along its order[0], 1))      (masked)
//   async copy: vec = min(max(vec, op's `contiguity` hint), 128 / bits)
// TTIR (no layout yet): Coalesce's per-thread elements stand in for the layout:
//   perThread = min(min(max(div_bytes / elem_bytes, 1), min(contiguity, shape)), 128 / bits),
//   maxed over the connected memory ops with the same shape and order, capped at
//   max(numElems / numThreads, 1) (stores: also at their own value).
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "tritondx/analysis/axis_info_culprit.h"
#include "tritondx/analysis/axis_info_internal.h"

namespace tdx::axis {

namespace {


// What a layout says about the fastest dimension and per-thread contiguity.
struct LayoutFacts {
  bool known = false;
  std::vector<int64_t> order;              // fastest first
  std::vector<int64_t> contig_per_thread;  // per dim
  std::string text;                        // e.g. "#blocked (sizePerThread = [1, 8])"
};

std::string dims_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

LayoutFacts layout_of(const MlirModule& m, const Layout* l, size_t rank, int depth = 0) {
  LayoutFacts f;
  if (!l || depth > 4) return f;
  switch (l->kind) {
    case LayoutKind::Blocked:
      if (l->order.size() != rank || l->size_per_thread.size() != rank) return f;
      f.known = true;
      f.order = l->order;
      f.contig_per_thread = l->size_per_thread;
      f.text = fmt::format("{} (sizePerThread = {}, order = {})", l->alias.empty() ? "#ttg.blocked" : l->alias,
                           dims_text(l->size_per_thread), dims_text(l->order));
      return f;
    case LayoutKind::NvidiaMma:
      if (rank != 2) return f;
      f.known = true;
      f.order = {1, 0};
      f.contig_per_thread = {1, 2};
      f.text = fmt::format("{} (mma v{}: 2 contiguous elements per thread along N)",
                           l->alias.empty() ? "#ttg.nvidia_mma" : l->alias, l->version_major);
      return f;
    case LayoutKind::Slice: {
      const Layout* parent = m.layout(l->parent);
      LayoutFacts p = layout_of(m, parent, rank + 1, depth + 1);
      if (!p.known || l->slice_dim < 0) return f;
      const int64_t dim = l->slice_dim;
      f.known = true;
      for (int64_t o : p.order)
        if (o != dim) f.order.push_back(o > dim ? o - 1 : o);
      for (size_t d = 0; d < p.contig_per_thread.size(); ++d)
        if (static_cast<int64_t>(d) != dim) f.contig_per_thread.push_back(p.contig_per_thread[d]);
      f.text = fmt::format("#ttg.slice<dim = {}> of {}", dim, p.text);
      return f;
    }
    default:
      return f;
  }
}

// Triton's getOrderFromContiguity: dimensions by contiguity, highest first; ties keep the
// reversed dimension order (the last dimension first).
std::vector<int64_t> order_from_contiguity(const AxisInfo& a, size_t rank) {
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return contiguity(a, static_cast<int>(x)) > contiguity(a, static_cast<int>(y)); });
  return order;
}

struct Access {
  int op = -1;
  std::string kind;
  int ptr = -1, mask = -1;  // definitions (-1 = none / unknown)
  bool has_mask = false;
  const MlirType* ptr_type = nullptr;
  const MlirType* mask_type = nullptr;
  int bits = 0;
  std::optional<int64_t> contiguity_attr;  // async copies: the pipeliner's vector hint
};

std::optional<Access> access_of(const AxisInfoAnalysis& a, const MlirOp& op) {
  Access x;
  x.op = op.index;
  const std::string& n = op.name;
  size_t mask_index = std::string::npos;
  if (n == "tt.load") {
    x.kind = "load";
    mask_index = 1;
  } else if (n == "tt.store") {
    x.kind = "store";
    mask_index = 2;
  } else if (n == "ttg.async_copy_global_to_local") {
    x.kind = "async-copy";
    if (op.text.find(" mask %") != std::string::npos) mask_index = 2;
    x.contiguity_attr = op.int_attribute("contiguity");
  } else if (n == "tt.atomic_rmw") {
    x.kind = "atomic";
    mask_index = 2;
  } else if (n == "tt.atomic_cas") {
    x.kind = "atomic";
  } else {
    return std::nullopt;
  }
  if (op.operands.empty()) return std::nullopt;
  const auto& defs = a.definitions();
  x.ptr = a.operand_definition(op.index, 0);
  x.ptr_type = x.ptr >= 0 ? defs[static_cast<size_t>(x.ptr)].type : nullptr;
  if (!x.ptr_type && !op.operand_types.empty()) x.ptr_type = &op.operand_types[0];
  if (mask_index != std::string::npos && mask_index < op.operands.size()) {
    x.has_mask = true;
    x.mask = a.operand_definition(op.index, mask_index);
    x.mask_type = x.mask >= 0 ? defs[static_cast<size_t>(x.mask)].type : nullptr;
    if (!x.mask_type && mask_index < op.operand_types.size()) x.mask_type = &op.operand_types[mask_index];
  }
  if (x.ptr_type) x.bits = pointee_bits(*x.ptr_type);
  if (x.bits <= 0 && !op.result_types.empty()) x.bits = element_type_bits(op.result_types[0].element);
  return x;
}

// Per-thread elements Coalesce would pick for one op (getNumElementsPerThread).
int64_t coalesce_per_thread(const AxisInfo& p, const std::vector<int64_t>& shape, const std::vector<int64_t>& order,
                            int bits) {
  int o0 = static_cast<int>(order[0]);
  int64_t elem_bytes = std::max(bits / 8, 1);
  int64_t max_multiple = std::max<int64_t>(divisibility(p, o0) / elem_bytes, 1);
  int64_t max_contig = std::min(contiguity(p, o0), shape[static_cast<size_t>(o0)]);
  int64_t alignment = std::min(max_multiple, max_contig);
  return std::min<int64_t>(alignment, std::max(128 / std::max(bits, 1), 1));
}


int source_line(const MlirOp& op) {
  if (op.loc.known()) return op.loc.line;
  return op.call_site.line;
}

std::string strip_op(const MlirOp& op) {
  std::string t = op.text;
  if (size_t loc = t.rfind(" loc("); loc != std::string::npos) t.resize(loc);
  // Drop the trailing type list: " : tensor<...>".
  int depth = 0;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    char c = t[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    else if (c == '"') {
      size_t e = t.find('"', i + 1);
      if (e == std::string::npos) break;
      i = e;
    } else if (depth == 0 && c == ' ' && t[i + 1] == ':' && t[i + 2] == ' ') {
      t.resize(i);
      break;
    }
  }
  size_t b = t.find_first_not_of(' ');
  return b == std::string::npos ? t : t.substr(b);
}

}  // namespace

std::string op_summary(const MlirOp& op) { return strip_op(op); }

std::vector<MemoryVectorization> analyze_memory_ops(const AxisInfoAnalysis& a) {
  const MlirModule& m = a.module();
  const auto& defs = a.definitions();
  std::vector<MemoryVectorization> out;
  std::vector<Access> accesses;
  for (const MlirOp& op : m.ops)
    if (auto x = access_of(a, op)) accesses.push_back(*x);
  if (accesses.empty()) return out;

  const bool ttgir = m.stage == Stage::Ttgir;
  const int64_t num_warps = m.num_warps().value_or(4);
  const int64_t threads = m.threads_per_warp().value_or(32);
  static const AxisInfo kPessimistic = pessimistic(1);
  auto info_of = [&](int d) -> const AxisInfo& { return d >= 0 ? defs[static_cast<size_t>(d)].info : kPessimistic; };

  // TTIR: connected components of the def-use graph stand in for Coalesce's slice.
  std::vector<int> parent;
  auto find = [&](int x) {
    while (parent[static_cast<size_t>(x)] != x)
      x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  };
  if (!ttgir) {
    parent.resize(m.ops.size());
    std::iota(parent.begin(), parent.end(), 0);
    for (const MlirOp& op : m.ops) {
      for (size_t k = 0; k < op.operands.size(); ++k) {
        int d = a.operand_definition(op.index, k);
        if (d < 0) continue;
        int owner = defs[static_cast<size_t>(d)].op >= 0 ? defs[static_cast<size_t>(d)].op : defs[static_cast<size_t>(d)].region_owner;
        if (owner >= 0) parent[static_cast<size_t>(find(op.index))] = find(owner);
      }
    }
  }

  CulpritTracer tracer(a);
  struct Pre {
    std::vector<int64_t> order;
    int64_t own = 1;
    bool ptr_defined = false;
  };
  std::vector<Pre> pre(accesses.size());
  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access& x = accesses[i];
    if (x.ptr_type && x.ptr_type->is_tensor && !x.ptr_type->shape.empty() && !ttgir) {
      const AxisInfo& p = info_of(x.ptr);
      pre[i].order = order_from_contiguity(p, x.ptr_type->shape.size());
      pre[i].own = coalesce_per_thread(p, x.ptr_type->shape, pre[i].order, x.bits);
      pre[i].ptr_defined = x.ptr >= 0 && defs[static_cast<size_t>(x.ptr)].op >= 0;
    }
  }

  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access& x = accesses[i];
    const MlirOp& op = m.ops[static_cast<size_t>(x.op)];
    MemoryVectorization mv;
    mv.op_index = x.op;
    mv.kind = x.kind;
    mv.element_bits = x.bits;
    const int bits = std::max(x.bits, 1);
    mv.max_vec = std::max(128 / bits, 1);
    const AxisInfo& p = info_of(x.ptr);
    if (!x.ptr_type || !x.ptr_type->is_tensor || x.ptr_type->shape.empty()) {
      // A scalar access: one element, nothing to vectorize.
      mv.predicted_vec = 1;
      mv.max_vec = 1;
      mv.limited_by = "none";
      mv.contiguity = contiguity(p, 0);
      mv.divisibility = std::max<int64_t>(divisibility(p, 0) / std::max(bits / 8, 1), 1);
      mv.explanation = fmt::format("The scalar {} moves one element.", x.kind);
      out.push_back(std::move(mv));
      continue;
    }
    const std::vector<int64_t>& shape = x.ptr_type->shape;
    const size_t rank = shape.size();
    std::vector<int64_t> order;
    int64_t layout_vec = 0;
    std::string layout_text;
    if (ttgir) {
      LayoutFacts lf = layout_of(m, m.layout(x.ptr_type->encoding), rank);
      if (lf.known) {
        order = lf.order;
        int o0 = static_cast<int>(order[0]);
        layout_vec = std::min(lf.contig_per_thread[static_cast<size_t>(o0)], shape[static_cast<size_t>(o0)]);
        layout_text = lf.text;
      }
    } else {
      order = pre[i].order;
      int64_t per_thread = pre[i].own;
      if (pre[i].ptr_defined) {
        for (size_t j = 0; j < accesses.size(); ++j) {
          if (j == i || !accesses[j].ptr_type || accesses[j].ptr_type->shape != shape || pre[j].order != order) continue;
          if (find(accesses[j].op) != find(x.op)) continue;
          per_thread = std::max(per_thread, pre[j].own);
        }
      }
      int64_t elems = x.ptr_type->num_elements();
      per_thread = std::min<int64_t>(per_thread, std::max<int64_t>(elems / (num_warps * threads), 1));
      if (x.kind != "load") per_thread = std::min(per_thread, pre[i].own);
      layout_vec = std::min(per_thread, shape[static_cast<size_t>(order[0])]);
      layout_text = fmt::format("Coalesce's sizePerThread[{}] = {} (numElems {} / {} threads)", order[0], per_thread,
                                elems, num_warps * threads);
    }
    if (order.empty()) {
      for (size_t d = rank; d-- > 0;) order.push_back(static_cast<int64_t>(d));
    }
    const int o0 = static_cast<int>(order[0]);
    mv.order0 = o0;
    mv.layout_vec = layout_vec;
    const int64_t elem_bytes = std::max(bits / 8, 1);
    const int64_t f_contig = contiguity(p, o0);
    const int64_t f_align = std::max<int64_t>(divisibility(p, o0) / elem_bytes, 1);
    mv.contiguity = f_contig;
    mv.divisibility = f_align;
    int64_t vec = std::min<int64_t>(mv.max_vec, std::min(f_align, f_contig));
    if (layout_vec > 0) vec = std::min(vec, layout_vec);
    int64_t f_mask = kMaxDivisor;
    int mask_o0 = o0;
    if (x.has_mask) {
      if (ttgir && x.mask_type && x.mask_type->is_tensor) {
        LayoutFacts mf = layout_of(m, m.layout(x.mask_type->encoding), x.mask_type->shape.size());
        if (mf.known) mask_o0 = static_cast<int>(mf.order[0]);
      }
      if (!x.mask_type || x.mask_type->is_tensor) {
        f_mask = std::max<int64_t>(constancy(info_of(x.mask), mask_o0), 1);
        mv.mask_constancy = f_mask;
        vec = std::min(vec, f_mask);
      }
    }
    if (x.kind == "async-copy" && x.contiguity_attr) vec = std::min<int64_t>(std::max(vec, *x.contiguity_attr), mv.max_vec);
    vec = std::max<int64_t>(vec, 1);
    mv.predicted_vec = static_cast<int>(vec);

    // What limits it, in priority order (a pointer property first: fixing the mask or the
    // layout alone would not help).
    if (vec >= mv.max_vec) mv.limited_by = "none";
    else if (f_contig <= vec) mv.limited_by = "contiguity";
    else if (f_align <= vec) mv.limited_by = "alignment";
    else if (f_mask <= vec) mv.limited_by = "mask";
    else mv.limited_by = "layout";

    std::string what = op.loc_name;
    if (what.empty()) what = pointer_base(a, x.ptr);
    if (what.empty()) what = op.operands[0];
    const int line = source_line(op);
    const std::string at_line = line > 0 ? fmt::format(" (line {})", line) : std::string();
    if (mv.limited_by == "none") {
      mv.explanation = fmt::format("The {} of {}{} uses vec={} ({} bits), the widest possible.", x.kind, what, at_line,
                                   vec, vec * bits);
      out.push_back(std::move(mv));
      continue;
    }
    if (mv.limited_by == "layout") {
      mv.culprit_op = x.op;
      mv.property = "layout";
      mv.culprit_value = op.operands[0];
      mv.explanation = fmt::format(
          "The {} of {}{} uses vec={} (max {}) because the layout of `{}` gives each thread only {} contiguous "
          "element(s) along dimension {}: {}; pointer contiguity {} and alignment {} would allow more.",
          x.kind, what, at_line, vec, mv.max_vec, strip_op(op), layout_vec, o0, layout_text, num(f_contig),
          num(f_align));
      out.push_back(std::move(mv));
      continue;
    }
    Trace t;
    if (mv.limited_by == "contiguity") t = tracer.trace(x.ptr, Prop::Contig, o0, mv.max_vec);
    else if (mv.limited_by == "alignment") t = tracer.trace(x.ptr, Prop::Div, o0, mv.max_vec * elem_bytes);
    else t = tracer.trace(x.mask, Prop::Const, mask_o0, mv.max_vec);
    if (t.op < 0) {  // the pointer is itself a weak argument
      t.op = x.op;
      t.value = op.operands[0];
    }
    mv.culprit_op = t.op;
    mv.property = std::string(prop_name(t.prop));
    mv.culprit_value = t.value;
    mv.root_argument = t.root_arg;
    mv.root_note = t.root_note;
    if (mv.limited_by != "mask" && x.has_mask && f_mask < mv.max_vec)
      mv.mask_root_argument = tracer.trace(x.mask, Prop::Const, mask_o0, mv.max_vec).root_arg;
    const MlirOp& c = m.ops[static_cast<size_t>(t.op)];
    const int cline = source_line(c);
    std::string limit_text = mv.limited_by == "contiguity"  ? fmt::format("pointer contiguity {}", num(f_contig))
                             : mv.limited_by == "alignment" ? fmt::format("pointer alignment {} element(s)", num(f_align))
                                                            : fmt::format("mask constancy {}", num(f_mask));
    mv.explanation = fmt::format("The {} of {}{} uses vec={} (max {}), limited by {}: {} is lost at `{}`{}, where {}{}.",
                                 x.kind, what, at_line, vec, mv.max_vec, limit_text, prop_name(t.prop), strip_op(c),
                                 cline > 0 ? fmt::format(" (line {})", cline) : std::string(), t.rule,
                                 t.root_note.empty() ? std::string() : "; " + t.root_note);
    out.push_back(std::move(mv));
  }
  return out;
}

std::string pointer_base(const AxisInfoAnalysis& a, int d) {
  const auto& defs = a.definitions();
  const MlirModule& m = a.module();
  for (int i = 0; i < 32 && d >= 0; ++i) {
    const auto& x = defs[static_cast<size_t>(d)];
    if (x.op < 0) return x.region_owner < 0 ? x.name.substr(x.name.starts_with('%') ? 1 : 0) : std::string();
    const MlirOp& op = m.ops[static_cast<size_t>(x.op)];
    if (op.name == "tt.addptr" || op.name == "tt.splat" || op.name == "tt.broadcast" ||
        op.name == "ttg.convert_layout" || op.name == "tt.expand_dims")
      d = a.operand_definition(op.index, 0);
    else
      return {};
  }
  return {};
}

}  // namespace tdx::axis
