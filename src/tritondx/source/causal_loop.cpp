#include "tritondx/source/causal_loop.h"

#include <fmt/format.h>

namespace tdx::l0 {
namespace {

bool is_neg_inf(const KernelView& view, const PyNode& n) {
  std::string t = view.text(n);
  return t == "float(\"-inf\")" || t == "float('-inf')" || t == "-float(\"inf\")" || t == "-float('inf')" ||
         t == "-math.inf" || t == "float(\"-Inf\")";
}

// `name[:, None]` (axis 0) or `name[None, :]` (axis 1): the name, else "".
std::string broadcast_name(const KernelView& view, const PyNode& n, int axis) {
  if (n.type != "Subscript" || !n.child("value") || n.child("value")->type != "Name") return "";
  std::string t = view.text(n);
  std::string name = n.child("value")->str_field("id");
  std::string want = axis == 0 ? name + "[:, None]" : name + "[None, :]";
  return t == want ? name : "";
}

// rows defined once as `off + tl.arange(0, BM)`: the nodes `off` and `BM`.
std::optional<std::pair<const PyNode*, const PyNode*>> row_offset(const KernelView& view, const std::string& rows) {
  const auto& defs = view.definitions(rows);
  if (defs.size() != 1 || !defs[0].value || defs[0].value->type != "BinOp" ||
      defs[0].value->fields.value("op", "") != "Add")
    return {};
  const PyNode* l = defs[0].value->child("left");
  const PyNode* r = defs[0].value->child("right");
  for (auto [off, ar] : {std::pair{l, r}, {r, l}}) {
    if (!ar || ar->type != "Call" || normalize_triton_name(call_name(*ar)) != "tl.arange") continue;
    const PyNode* lo = argument(*ar, 0);
    const PyNode* hi = argument(*ar, 1);
    if (!lo || !hi || view.value(*lo) != 0) continue;
    return std::pair{off, hi};
  }
  return {};
}

}  // namespace

std::optional<CausalLoop> match_causal_loop(const KernelView& view, const PyNode& loop) {
  const PyNode* iter = loop.child("iter");
  const PyNode* target = loop.child("target");
  if (!iter || iter->type != "Call" || call_name(*iter) != "range" || !target || target->type != "Name") return {};
  auto args = iter->children_in("args");
  if (args.size() != 3) return {};
  auto step = view.value(*args[2]);
  if (!step || *step <= 0) return {};
  const std::string start = target->str_field("id");
  std::optional<CausalLoop> found;
  PyModule::walk(loop, [&](const PyNode& n) {
    if (found || n.type != "Call" || normalize_triton_name(call_name(n)) != "tl.where") return;
    const PyNode* cond = argument(n, 0);
    const PyNode* kept = argument(n, 1);
    const PyNode* other = argument(n, 2);
    if (!cond || !kept || !other || cond->type != "Compare" || !is_neg_inf(view, *other)) return;
    auto ops = cond->fields.value("ops", nlohmann::json::array());
    auto comparators = cond->children_in("comparators");
    if (ops.size() != 1 || comparators.size() != 1 || !cond->child("left")) return;
    std::string op = ops[0].get<std::string>();
    const PyNode* lhs = cond->child("left");
    const PyNode* rhs = comparators[0];
    if (op == "LtE" || op == "Lt") std::swap(lhs, rhs), op = op == "LtE" ? "GtE" : "Gt";
    if (op != "GtE" && op != "Gt") return;
    std::string rows = broadcast_name(view, *lhs, 0), cols = broadcast_name(view, *rhs, 1);
    if (rows.empty() || cols.empty()) return;
    // cols = start + <loop-invariant>; rows fixed outside the loop.
    const auto& cdefs = view.definitions(cols);
    if (cdefs.size() != 1 || !cdefs[0].value || !PyModule::inside(*cdefs[0].stmt, loop)) return;
    if (!PyModule::names_read(*cdefs[0].value).contains(start)) return;
    for (const auto& d : view.definitions(rows))
      if (PyModule::inside(*d.stmt, loop)) return;
    auto offset = row_offset(view, rows);
    if (!offset) return;
    // The result of the where: an assignment `s = tl.where(...)`.
    const PyNode* stmt = n.parent;
    if (!stmt || stmt->type != "Assign" || stmt->children_in("targets").size() != 1 ||
        stmt->children_in("targets")[0]->type != "Name")
      return;
    CausalLoop m;
    m.loop = &loop;
    m.where = &n;
    m.rows = rows;
    m.cols = cols;
    m.scores = stmt->children_in("targets")[0]->str_field("id");
    m.offset_node = offset->first;
    m.offset = view.text(*offset->first);
    m.rows_block_node = offset->second;
    m.rows_block = view.text(*offset->second);
    m.bound = fmt::format("{} + {}", m.offset, m.rows_block);
    m.strict = op == "Gt";
    found = m;
  });
  return found;
}

bool reads_offset(const KernelView& view, const CausalLoop& m, const PyNode& expr) {
  auto read = PyModule::names_read(expr);
  for (const auto& name : PyModule::names_read(*m.offset_node))
    if (read.contains(name) && view.signature(name) != "constexpr") return true;
  return false;
}

std::string diagonal_split_refusal(const KernelView& view, const CausalLoop& m) {
  auto args = m.loop->child("iter")->children_in("args");
  auto step = view.value(*args[2]);
  if (!step || *step <= 0) return "the loop's step is not a known positive value";
  if (auto lo = view.value(*args[0]); !lo || *lo % *step != 0)
    return fmt::format("the loop does not start at a multiple of its step {}", *step);
  // off = a * b with a factor that is a multiple of the step for the captured launch.
  const PyNode* off = m.offset_node;
  bool multiple = false;
  if (auto v = view.value(*off)) multiple = *v % *step == 0;
  if (off->type == "BinOp" && off->str_field("op") == "Mult")
    for (const PyNode* factor : {off->child("left"), off->child("right")})
      if (auto v = factor ? view.value(*factor) : std::nullopt; v && *v % *step == 0) multiple = true;
  if (!multiple)
    return fmt::format("the rows' offset `{}` is not a multiple of the loop's step {} (a block would straddle the "
                       "program's first row)",
                       m.offset, *step);
  // cols = start + tl.arange(0, step), directly or through a name defined once.
  const PyNode* target = m.loop->child("target");
  const auto& cdefs = view.definitions(m.cols);
  const PyNode* value = cdefs.size() == 1 ? cdefs[0].value : nullptr;
  bool shaped = false;
  if (value && value->type == "BinOp" && value->str_field("op") == "Add")
    for (auto [s, r] : {std::pair{value->child("left"), value->child("right")}, {value->child("right"), value->child("left")}}) {
      if (!s || !r || s->type != "Name" || s->str_field("id") != target->str_field("id")) continue;
      const PyNode* ar = r;
      if (r->type == "Name")
        if (const auto& d = view.definitions(r->str_field("id")); d.size() == 1 && d[0].value) ar = d[0].value;
      if (ar->type == "Call" && normalize_triton_name(call_name(*ar)) == "tl.arange" && argument(*ar, 0) &&
          argument(*ar, 1) && view.value(*argument(*ar, 0)) == 0 && view.value(*argument(*ar, 1)) == *step)
        shaped = true;
    }
  if (!shaped)
    return fmt::format("`{}` is not `{} + tl.arange(0, {})`: the columns of a block are unknown", m.cols,
                       target->str_field("id"), *step);
  return "";
}

}  // namespace tdx::l0
