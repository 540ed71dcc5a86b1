#include "tritondx/source/repeated_max_match.h"

#include <fmt/format.h>

#include <tuple>

#include "tritondx/source/max_argmax.h"

namespace tdx::l0 {
namespace {

bool after(const PyNode& n, const PyNode& stmt) {
  return std::tie(n.line, n.col) > std::tie(stmt.end_line, stmt.end_col);
}

std::string target_name(const PyNode& assign) {
  auto targets = assign.children_in("targets");
  return targets.size() == 1 && targets[0]->type == "Name" ? targets[0]->str_field("id") : "";
}

// `m, i = ...`: {m, i}.
std::optional<std::pair<std::string, std::string>> pair_target(const PyNode& assign) {
  auto targets = assign.children_in("targets");
  if (targets.size() != 1 || targets[0]->type != "Tuple") return std::nullopt;
  auto elts = targets[0]->children_in("elts");
  if (elts.size() != 2 || elts[0]->type != "Name" || elts[1]->type != "Name") return std::nullopt;
  return std::pair{elts[0]->str_field("id"), elts[1]->str_field("id")};
}

bool is_true(const PyNode* n) { return n && n->type == "Constant" && n->fields.value("value", nlohmann::json()) == true; }

bool negative_infinity(const KernelView& view, const PyNode& n) {
  std::string t = view.squashed_text(n);
  for (char& c : t)
    if (c == '\'') c = '"';
  return t == "-float(\"inf\")" || t == "float(\"-inf\")";
}

// Axis 0, -1 or absent for a 1-D operand, without keep_dims.
bool whole_axis(const PyNode& call) {
  if (is_true(keyword(call, "keep_dims"))) return false;
  const PyNode* axis = argument(call, 1);
  if (!axis) axis = keyword(call, "axis");
  if (!axis) return true;
  if (axis->type == "Constant" && axis->fields.value("value", nlohmann::json()).is_null()) return true;
  auto v = int_constant(*axis);
  return v && (*v == 0 || *v == -1);
}

bool pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

struct Attempt {
  RepeatedMaxSelection m;
  std::string why;  // empty when it matched
};

std::optional<Attempt> try_loop(const KernelView& view, const PyNode& loop) {
  Attempt a;
  RepeatedMaxSelection& s = a.m;
  s.loop = &loop;
  const PyNode* target = loop.child("target");
  const PyNode* iter = loop.child("iter");
  if (!target || target->type != "Name" || !iter || iter->type != "Call") return std::nullopt;
  s.loop_var = target->str_field("id");

  const PyNode* argmax_call = nullptr;
  const PyNode* where = nullptr;
  std::vector<const PyNode*> others;
  for (const PyNode* st : loop.children_in("body")) {
    const PyNode* value = st->child("value");
    std::string name = value && value->type == "Call" ? normalize_triton_name(call_name(*value)) : "";
    if (st->type == "Assign" && name == "tl.max" && !s.max_call) {
      s.max_call = value;
      if (auto p = pair_target(*st); p && is_true(keyword(*value, "return_indices"))) {
        s.value_name = p->first;
        s.index_name = p->second;
      } else {
        s.value_name = target_name(*st);
      }
    } else if (st->type == "Assign" && name == "tl.argmax" && !argmax_call) {
      argmax_call = value;
      s.index_name = target_name(*st);
    } else if (st->type == "Assign" && name == "tl.where" && !where) {
      where = value;
      s.mask_out = st;
    } else if (st->type == "Expr" && name == "tl.store" && !s.store) {
      s.store = st;
    } else {
      others.push_back(st);
    }
  }
  if (!s.max_call || !where) return std::nullopt;  // not a selection loop at all
  auto reject = [&](std::string why) {
    a.why = fmt::format("loop on line {}: {}", loop.line, std::move(why));
    return a;
  };
  if (!loop.children_in("orelse").empty()) return reject("the loop has an else branch");
  if (!others.empty()) return reject(fmt::format("line {} does more than select, store and mask", others.front()->line));

  const PyNode* operand = reduced_operand(*s.max_call);
  if (!operand || operand->type != "Name") return reject("the maximum is not taken of a named tensor");
  s.tensor = operand->str_field("id");
  if (target_name(*s.mask_out) != s.tensor) return reject(fmt::format("the tl.where does not reassign {}", s.tensor));
  if (s.value_name.empty() || s.index_name.empty())
    return reject("the maximum and its index are not bound to two names");
  if (argmax_call) {
    if (keyword(*s.max_call, "return_indices")) return reject("both return_indices and tl.argmax");
    const PyNode* ia = reduced_operand(*argmax_call);
    if (!ia || view.squashed_text(*ia) != s.tensor || reduction_axis(view, *argmax_call) != reduction_axis(view, *s.max_call))
      return reject("tl.argmax reduces another tensor or axis");
  }
  if (!whole_axis(*s.max_call)) return reject("the reduction is not over the tensor's only axis");
  auto shape = view.shape(*operand);
  if (!shape || shape->size() != 1) return reject(fmt::format("{} is not a 1-D tensor of known length", s.tensor));
  s.length = (*shape)[0];
  if (!pow2(s.length)) return reject(fmt::format("{} has {} elements, not a power of two", s.tensor, s.length));

  // range(K) / range(0, K) / tl.static_range(K)
  std::string range = normalize_triton_name(call_name(*iter));
  auto args = iter->children_in("args");
  if ((range != "range" && range != "tl.static_range") || args.empty() || args.size() > 2 || !iter->children_in("keywords").empty())
    return reject("the loop is not over range(K)");
  if (args.size() == 2 && int_constant(*args[0]) != 0) return reject("the loop does not start at 0");
  s.trips_expr = args.back();
  auto trips = view.value(*s.trips_expr);
  if (!trips) return reject("the trip count is not known for the captured launch");
  s.trips = *trips;
  bool constexpr_trips = s.trips_expr->type == "Constant" ||
                         (s.trips_expr->type == "Name" && view.signature(s.trips_expr->str_field("id")) == "constexpr");
  if (!constexpr_trips) return reject("the trip count is not a literal or a tl.constexpr parameter");
  if (!pow2(s.trips) || s.trips > s.length)
    return reject(fmt::format("{} selections: tl.topk needs a power of two no larger than the {} elements", s.trips, s.length));

  // x = tl.where(cols == i, -inf, x) with cols = tl.arange(0, N)
  const PyNode* cond = argument(*where, 0);
  const PyNode* fill = argument(*where, 1);
  const PyNode* keep = argument(*where, 2);
  if (!cond || !fill || !keep || keep->type != "Name" || keep->str_field("id") != s.tensor || !negative_infinity(view, *fill))
    return reject(fmt::format("the mask is not tl.where(<position> == {}, -inf, {})", s.index_name, s.tensor));
  auto ops = cond->fields.value("ops", nlohmann::json::array());
  const PyNode* l = cond->child("left");
  const PyNode* r = cond->child("comparators", 0);
  if (cond->type != "Compare" || ops != nlohmann::json::array({"Eq"}) || !l || !r || l->type != "Name" || r->type != "Name")
    return reject("the masked position is not `cols == index`");
  const PyNode* cols = l->str_field("id") == s.index_name ? r : r->str_field("id") == s.index_name ? l : nullptr;
  if (!cols) return reject(fmt::format("the masked position is not compared with {}", s.index_name));
  const Definition* cd = view.definition(*cols);
  if (!cd || !cd->value || cd->value->type != "Call" || normalize_triton_name(call_name(*cd->value)) != "tl.arange" ||
      !argument(*cd->value, 0) || int_constant(*argument(*cd->value, 0)) != 0 || view.shape(*cols) != shape)
    return reject(fmt::format("{} is not tl.arange(0, {})", cols->str_field("id"), s.length));

  // tl.store(ptr(k), m, ...)
  if (!s.store) return reject("no tl.store of the maximum in the loop");
  const PyNode* store_call = s.store->child("value");
  const PyNode* ptr = KernelView::pointer_arg(*store_call);
  const PyNode* value = argument(*store_call, 1) ? argument(*store_call, 1) : keyword(*store_call, "value");
  if (!ptr || !value || value->type != "Name" || value->str_field("id") != s.value_name)
    return reject(fmt::format("the tl.store does not store {}", s.value_name));
  if (!PyModule::names_read(*ptr).contains(s.loop_var))
    return reject("the stored address does not depend on the trip");

  // The loop's names are not read after it, and the index and value only where expected.
  for (const std::string& n : {s.tensor, s.value_name, s.index_name, s.loop_var})
    for (const PyNode* u : view.uses(n)) {
      if (after(*u, loop)) return reject(fmt::format("{} is read on line {}, after the loop", n, u->line));
      if (!PyModule::inside(*u, loop)) continue;
      if (n == s.value_name && !PyModule::inside(*u, *s.store))
        return reject(fmt::format("{} is read on line {} besides the store", n, u->line));
      if (n == s.index_name && !PyModule::inside(*u, *s.mask_out))
        return reject(fmt::format("{} is read on line {} besides the mask", n, u->line));
    }
  return a;
}

}  // namespace

std::vector<RepeatedMaxSelection> repeated_max_selections(const KernelView& view, std::vector<std::string>* rejected) {
  std::vector<RepeatedMaxSelection> out;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type != "For") return;
    auto a = try_loop(view, n);
    if (!a) return;
    if (a->why.empty()) out.push_back(a->m);
    else if (rejected) rejected->push_back(a->why);
  });
  return out;
}

}  // namespace tdx::l0
