#include "tritondx/source/interleaved_pairs.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <tuple>

namespace tdx::l0 {
namespace {

bool is_int(const PyNode* n, long long v) { return n && int_constant(*n) == v; }

bool is_add(const PyNode& n) { return n.type == "BinOp" && n.fields.value("op", "") == "Add"; }

// `2 * offs` or `offs * 2`: the Name offs.
const PyNode* doubled_name(const PyNode* n) {
  if (!n || n->type != "BinOp" || n->fields.value("op", "") != "Mult") return nullptr;
  const PyNode* a = n->child("left");
  const PyNode* b = n->child("right");
  if (is_int(a, 2) && b && b->type == "Name") return b;
  if (is_int(b, 2) && a && a->type == "Name") return a;
  return nullptr;
}

struct Address {
  const PyNode* base = nullptr;
  const PyNode* offs = nullptr;
  bool odd = false;
};

// `B + 2 * offs` (either order), or that plus 1.
std::optional<Address> pair_address(const PyNode& p) {
  if (!is_add(p)) return std::nullopt;
  const PyNode* l = p.child("left");
  const PyNode* r = p.child("right");
  if (const PyNode* o = doubled_name(r)) return Address{l, o, false};
  if (const PyNode* o = doubled_name(l)) return Address{r, o, false};
  if (is_int(r, 1) && l) {
    auto even = pair_address(*l);
    if (even && !even->odd) return Address{even->base, even->offs, true};
  }
  return std::nullopt;
}

// `offs = tl.arange(0, E)`, assigned once: its statement and E.
std::optional<std::pair<const PyNode*, const PyNode*>> arange_from_zero(const KernelView& view, const std::string& offs) {
  const auto& defs = view.definitions(offs);
  if (defs.size() != 1 || !defs[0].value || defs[0].stmt->type != "Assign") return std::nullopt;
  const PyNode& v = *defs[0].value;
  if (v.type != "Call" || normalize_triton_name(call_name(v)) != "tl.arange" || !is_int(argument(v, 0), 0) ||
      !argument(v, 1) || argument(v, 2) || !v.children_in("keywords").empty())
    return std::nullopt;
  return std::make_pair(defs[0].stmt, argument(v, 1));
}

// The X of a mask `offs < X`, written inline or through a name assigned once (X then names the
// same values at the access `at` as where the mask was computed); nullptr otherwise.
const PyNode* mask_limit(const KernelView& view, const PyNode& mask, const std::string& offs, const PyNode& at) {
  const PyNode* c = &mask;
  const Definition* through = nullptr;
  if (mask.type == "Name") {
    const auto& defs = view.definitions(mask.str_field("id"));
    if (defs.size() != 1 || !defs[0].value) return nullptr;
    through = &defs[0];
    c = defs[0].value;
  }
  if (c->type != "Compare") return nullptr;
  auto ops = c->fields.value("ops", nlohmann::json::array());
  auto rhs = c->children_in("comparators");
  const PyNode* lhs = c->child("left");
  if (ops.size() != 1 || ops[0] != "Lt" || rhs.size() != 1 || !lhs || lhs->type != "Name" ||
      lhs->str_field("id") != offs)
    return nullptr;
  if (through)
    for (const auto& name : PyModule::names_read(*rhs[0]))
      if (view.definition_at(name, through->line, through->col) != view.definition_at(name, at.line, at.col))
        return nullptr;
  return rhs[0];
}

// Only the pointer, mask and other (loads) or value (stores): a cache or eviction hint, a
// boundary check or a volatile flag would need carrying over.
bool plain_memop(const PyNode& call, bool store) {
  if (call.children_in("args").size() > 3) return false;
  for (const PyNode* k : call.children_in("keywords")) {
    std::string arg = k->str_field("arg");
    if (arg != "pointer" && arg != "mask" && arg != (store ? "value" : "other")) return false;
  }
  return true;
}

std::string text_or_empty(const KernelView& view, const PyNode* n) { return n ? view.squashed_text(*n) : ""; }

struct Access {
  const PyNode* call = nullptr;
  const PyNode* stmt = nullptr;
  Address address;
};

// A store that is a statement of its own (`tl.store(...)` on its own line).
bool whole_statement(const PyNode& call, const PyNode& stmt) {
  return stmt.type == "Expr" && stmt.child("value") == &call;
}

}  // namespace

std::vector<InterleavedPair> interleaved_pairs(const KernelView& view) {
  std::vector<InterleavedPair> out;
  for (bool store : {false, true}) {
    std::vector<Access> even, odd;
    for (const PyNode* call : view.calls({store ? "tl.store" : "tl.load"})) {
      const PyNode* p = KernelView::pointer_arg(*call);
      const PyNode* stmt = PyModule::enclosing_statement(*call);
      if (!p || !stmt || !plain_memop(*call, store)) continue;
      auto a = pair_address(*p);
      if (!a || !a->base) continue;
      (a->odd ? odd : even).push_back({call, stmt, *a});
    }
    std::set<const PyNode*> used;
    for (const Access& e : even) {
      const std::string offs = e.address.offs->str_field("id");
      if (PyModule::names_read(*e.address.base).contains(offs)) continue;
      auto arange = arange_from_zero(view, offs);
      if (!arange) continue;
      const PyNode* mask = KernelView::mask_arg(*e.call);
      const PyNode* limit = mask ? mask_limit(view, *mask, offs, *e.call) : nullptr;
      if (mask && !limit) continue;
      const std::string other = text_or_empty(view, KernelView::other_arg(*e.call));
      for (const Access& o : odd) {
        if (used.contains(o.call) || o.address.offs->str_field("id") != offs ||
            view.squashed_text(*o.address.base) != view.squashed_text(*e.address.base) ||
            text_or_empty(view, KernelView::mask_arg(*o.call)) != text_or_empty(view, mask) ||
            (!store && text_or_empty(view, KernelView::other_arg(*o.call)) != other))
          continue;
        if (o.stmt->parent != e.stmt->parent || o.stmt->field != e.stmt->field) continue;
        if (store && (!whole_statement(*e.call, *e.stmt) || !whole_statement(*o.call, *o.stmt) ||
                      std::abs(o.stmt->index - e.stmt->index) != 1))
          continue;
        // The address and mask name the same values at both accesses.
        std::set<std::string> names = PyModule::names_read(*KernelView::pointer_arg(*e.call));
        if (mask) names.merge(PyModule::names_read(*mask));
        bool same = true;
        for (const auto& n : names)
          if (view.definition_at(n, e.call->line, e.call->col) != view.definition_at(n, o.call->line, o.call->col))
            same = false;
        if (!same) continue;
        used.insert(o.call);
        InterleavedPair pair;
        pair.store = store;
        pair.even = e.call;
        pair.odd = o.call;
        pair.even_stmt = e.stmt;
        pair.odd_stmt = o.stmt;
        pair.base = e.address.base;
        pair.offs = offs;
        pair.offs_stmt = arange->first;
        pair.extent = arange->second;
        pair.mask = mask;
        pair.bound = limit;
        pair.other = store ? nullptr : KernelView::other_arg(*e.call);
        out.push_back(pair);
        break;
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const InterleavedPair& a, const InterleavedPair& b) {
    return std::tie(a.even->line, a.even->col) < std::tie(b.even->line, b.even->col);
  });
  return out;
}

}  // namespace tdx::l0
