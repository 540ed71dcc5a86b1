#include "tritondx/source/block_index.h"

#include <algorithm>

namespace tdx::l0 {

namespace {

constexpr int kMaxDepth = 32;

bool is_scalar(const KernelView& view, const PyNode& n) {
  auto s = view.shape(n);
  if (!s) return false;
  for (long long d : *s)
    if (d != 1) return false;
  return true;
}

// Intervals are exact for sums and products of program ids and constants, and can be loose past
// a `%`, `//` or min/max of them (the grouped ordering's row); only then are programs enumerated.
bool loose_intervals(const KernelView& view, const PyNode& e) {
  return view.flows_from(e, [](const PyNode& n) {
    if (n.type == "BinOp") {
      const std::string op = n.fields.value("op", "");
      return op == "Mod" || op == "FloorDiv";
    }
    if (n.type != "Call") return false;
    const std::string name = call_name(n);
    return name == "min" || name == "max" || name == "tl.minimum" || name == "tl.maximum";
  });
}

bool has_arange(const KernelView& view, const PyNode& e) {
  return view.flows_from(e, [](const PyNode& n) {
    return n.type == "Call" && normalize_triton_name(call_name(n)) == "tl.arange";
  });
}

// `exact`: a scalar start whose intervals can be loose is evaluated at every program instead.
std::optional<BlockIndex> decompose(const KernelView& view, const PyNode& e, int depth, bool exact = false) {
  if (depth > kMaxDepth) return std::nullopt;
  if (e.type == "Name") {
    const Definition* d = view.definition(e);
    if (!d || d->stmt->type != "Assign" || !d->value) return std::nullopt;
    return decompose(view, *d->value, depth + 1, exact);
  }
  if (e.type == "Subscript") return decompose(view, *e.child("value"), depth + 1, exact);
  if (e.type == "Call") {
    std::string name = call_name(e);
    if (name == "tl.arange") {
      auto r = view.range(e);
      if (!r) return std::nullopt;
      return BlockIndex{&e, r->hi - r->lo + 1, Range{r->lo, r->lo}};
    }
    if (name == "tl.multiple_of" || name == "tl.max_contiguous")
      if (const PyNode* a = argument(e, 0)) return decompose(view, *a, depth + 1, exact);
    if (const PyNode* f = e.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
      if (const PyNode* v = f->child("value")) return decompose(view, *v, depth + 1, exact);  // offs.to(tl.int64)
    return std::nullopt;
  }
  if (e.type == "BinOp") {
    std::string op = e.fields.value("op", "");
    if (op != "Add" && op != "Sub") return std::nullopt;
    const PyNode* l = e.child("left");
    const PyNode* r = e.child("right");
    if (!l || !r) return std::nullopt;
    bool ls = is_scalar(view, *l), rs = is_scalar(view, *r);
    if (ls && rs) {  // a block of 1 (tl.arange(0, 1)) has a scalar's shape: the arange's side is the block
      bool la = has_arange(view, *l), ra = has_arange(view, *r);
      if (la == ra) return std::nullopt;
      ls = !la;
      rs = !ra;
    }
    if (ls == rs) return std::nullopt;  // both tensors (e.g. a 2-D index) or both scalars
    const PyNode& tensor = ls ? *r : *l;
    const PyNode& scalar = ls ? *l : *r;
    if (op == "Sub" && ls) return std::nullopt;  // c - arange runs backwards
    auto inner = decompose(view, tensor, depth + 1, exact);
    auto offset = view.range(scalar);
    if (!offset || (exact && loose_intervals(view, scalar)))  // a grouped ordering's % and min()
      if (auto over_programs = view.range_over_programs(scalar)) offset = over_programs;
    if (!offset && !view.root_pointer(scalar).empty()) offset = Range{0, 0};  // a base pointer: offsets count from it
    if (!inner || !offset) return std::nullopt;
    if (op == "Add") inner->start = Range{inner->start.lo + offset->lo, inner->start.hi + offset->hi};
    else inner->start = Range{inner->start.lo - offset->hi, inner->start.hi - offset->lo};
    return inner;
  }
  return std::nullopt;
}

void collect_conjuncts(const KernelView& view, const PyNode& e, std::vector<const PyNode*>& out, int depth) {
  if (depth > kMaxDepth) return;
  if (e.type == "Name") {
    const Definition* d = view.definition(e);
    if (d && d->stmt->type == "Assign" && d->value) return collect_conjuncts(view, *d->value, out, depth + 1);
    out.push_back(&e);
    return;
  }
  if (e.type == "BinOp" && e.fields.value("op", "") == "BitAnd") {
    collect_conjuncts(view, *e.child("left"), out, depth + 1);
    collect_conjuncts(view, *e.child("right"), out, depth + 1);
    return;
  }
  if (e.type == "BoolOp" && e.fields.value("op", "") == "And") {
    for (const PyNode* v : e.children_in("values")) collect_conjuncts(view, *v, out, depth + 1);
    return;
  }
  out.push_back(&e);
}

// The expression an index stands for: a name's assigned value, without broadcasts.
const PyNode* index_value(const KernelView& view, const PyNode* n) {
  for (int i = 0; n && i < kMaxDepth; ++i) {
    if (n->type == "Subscript") n = n->child("value");
    else if (n->type == "Name") {
      const Definition* d = view.definition(*n);
      if (!d || d->stmt->type != "Assign" || !d->value) return n;
      n = d->value;
    } else return n;
  }
  return n;
}

bool reaches(const KernelView& view, const PyNode& node, const PyNode& target, const std::string& target_text,
             int depth) {
  if (depth > kMaxDepth) return false;
  const PyNode* v = index_value(view, &node);
  if (!v) return false;
  if (v == &target || (!target_text.empty() && v->type != "Name" && view.text(*v) == target_text)) return true;
  auto go = [&](const PyNode* n) { return n && reaches(view, *n, target, target_text, depth + 1); };
  if (v->type == "BinOp") {
    std::string op = v->fields.value("op", "");
    const PyNode* l = v->child("left");
    const PyNode* r = v->child("right");
    if (op == "Add" || op == "Sub") return go(l) || go(r);
    if (op == "Mult") return (view.value(*r) == 1 && go(l)) || (view.value(*l) == 1 && go(r));
    return false;
  }
  if (v->type == "Call") {
    std::string name = call_name(*v);
    if (name == "tl.multiple_of") return go(argument(*v, 0));
  }
  return false;
}

}  // namespace

bool indexes_contiguously(const KernelView& view, const PyNode& address, const PyNode& index) {
  const PyNode* target = index_value(view, &index);
  if (!target) return false;
  return reaches(view, address, *target, target->type == "Name" ? std::string() : view.text(*target), 0);
}

bool contiguous_along_arange(const KernelView& view, const PyNode& address) {
  bool contiguous = false;
  view.visit_flow(address, [&](const PyNode& n) {
    if (n.type == "Call" && normalize_triton_name(call_name(n)) == "tl.arange")
      contiguous = contiguous || indexes_contiguously(view, address, n);
    return true;
  });
  return contiguous;
}

std::optional<long long> BlockIndex::blocks() const {
  if (block <= 0 || (start.hi - start.lo) % block != 0) return std::nullopt;
  return (start.hi - start.lo) / block + 1;
}

std::optional<BlockIndex> decompose_block_index(const KernelView& view, const PyNode& index) {
  return decompose(view, index, 0);
}

bool MaskBound::always_true() const {
  if (!index_range || !limit_range) return false;
  if (upper) return inclusive ? index_range->hi <= limit_range->lo : index_range->hi < limit_range->lo;
  return inclusive ? index_range->lo >= limit_range->hi : index_range->lo > limit_range->hi;
}

std::vector<const PyNode*> mask_conjuncts(const KernelView& view, const PyNode& mask) {
  std::vector<const PyNode*> out;
  collect_conjuncts(view, mask, out, 0);
  return out;
}

std::optional<MaskBound> mask_bound(const KernelView& view, const PyNode& c) {
  if (c.type != "Compare") return std::nullopt;
  auto ops = c.fields.value("ops", nlohmann::json::array());
  auto rhs = c.children_in("comparators");
  const PyNode* lhs = c.child("left");
  if (ops.size() != 1 || rhs.size() != 1 || !lhs) return std::nullopt;
  std::string op = ops[0].get<std::string>();
  bool left_scalar = is_scalar(view, *lhs), right_scalar = is_scalar(view, *rhs[0]);
  if (left_scalar && right_scalar) {  // a block of 1 has a scalar's shape: the arange's side is the index
    bool left_block = has_arange(view, *lhs), right_block = has_arange(view, *rhs[0]);
    if (left_block == right_block) return std::nullopt;
    left_scalar = !left_block;
    right_scalar = !right_block;
  }
  if (left_scalar == right_scalar) return std::nullopt;
  MaskBound b;
  b.compare = &c;
  b.index = left_scalar ? rhs[0] : lhs;
  b.limit = left_scalar ? lhs : rhs[0];
  // Normalize to `index OP limit`.
  if (left_scalar) {
    if (op == "Lt") op = "Gt";
    else if (op == "LtE") op = "GtE";
    else if (op == "Gt") op = "Lt";
    else if (op == "GtE") op = "LtE";
  }
  if (op == "Lt" || op == "LtE") b.upper = true;
  else if (op == "Gt" || op == "GtE") b.upper = false;
  else return std::nullopt;
  b.inclusive = op == "LtE" || op == "GtE";
  b.index_range = view.range(*b.index);
  b.limit_range = view.range(*b.limit);
  // Where intervals cannot show the bound holds, a block index's span with its start evaluated at
  // every program can (a block of rows in a grouped program ordering).
  if (!b.always_true())
    if (auto bi = decompose(view, *b.index, 0, true)) {
      Range span{bi->start.lo, bi->start.hi + bi->block - 1};
      b.index_range = b.index_range ? Range{std::max(b.index_range->lo, span.lo), std::min(b.index_range->hi, span.hi)}
                                    : span;
    }
  return b;
}

Coverage Coverage::of_reaching_blocks(long long block) const {
  Coverage c = *this;
  c.blocks = std::min(blocks, (valid + block - 1) / block);
  c.lanes = c.blocks * block;
  return c;
}

std::optional<Coverage> coverage(const BlockIndex& index, long long limit) {
  auto blocks = index.blocks();
  if (!blocks) return std::nullopt;
  Coverage c;
  c.blocks = *blocks;
  c.lanes = *blocks * index.block;
  c.valid = std::clamp(limit - index.start.lo, 0LL, c.lanes);
  return c;
}

std::optional<Tile> largest_tile(const KernelView& view) {
  std::optional<Tile> best;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* p = KernelView::pointer_arg(*op);
    auto s = p ? view.shape(*p) : std::nullopt;
    if (!s) continue;
    long long n = 1;
    size_t rank = 0;
    for (long long d : *s) {
      n *= d;
      rank += d > 1 ? 1 : 0;
    }
    if (!best || n > best->elements) best = Tile{op, n, rank, *s};
  }
  return best;
}

long long best_chunk(long long extent, long long max_block, double max_waste) {
  long long best = 16;
  for (long long c = 16; c <= max_block; c *= 2) {
    long long lanes = (extent + c - 1) / c * c;
    if (double(lanes - extent) / double(lanes) <= max_waste) best = c;
  }
  return best;
}

std::vector<MaskedAccess> masked_accesses(const KernelView& view) {
  std::vector<MaskedAccess> out;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* mask = KernelView::mask_arg(*op);
    if (!mask) continue;
    for (const PyNode* c : mask_conjuncts(view, *mask))
      if (auto b = mask_bound(view, *c)) out.push_back({op, *b});
  }
  return out;
}

std::vector<FullBlockGuard> full_block_guards(const PyNode& node, bool in_else) {
  std::vector<FullBlockGuard> out;
  for (const PyNode* child = &node; child->parent; child = child->parent) {
    const PyNode* p = child->parent;
    if (p->type != "If" || child->field != (in_else ? "orelse" : "body")) continue;
    const PyNode* test = p->child("test");
    if (!test || test->type != "Compare" ||
        test->fields.value("ops", nlohmann::json::array()) != nlohmann::json::array({"LtE"}))
      continue;
    const PyNode* sum = test->child("left");
    auto right = test->children_in("comparators");
    if (!sum || sum->type != "BinOp" || sum->str_field("op") != "Add" || right.size() != 1) continue;
    out.push_back({sum, right[0]->type == "Name" ? right[0]->str_field("id") : std::string()});
  }
  return out;
}

}  // namespace tdx::l0
