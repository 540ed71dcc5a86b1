#include "tritondx/source/scan_propagate_match.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <vector>

namespace tdx::l0 {
namespace {

bool is_call(const PyNode* n, std::string_view name) {
  return n && n->type == "Call" && normalize_triton_name(call_name(*n)) == name;
}

// `P + E` with P a Name: {P, E}.
std::pair<std::string, const PyNode*> base_and_offset(const PyNode* pointer) {
  if (!pointer || pointer->type != "BinOp" || pointer->str_field("op") != "Add") return {"", nullptr};
  const PyNode* left = pointer->child("left");
  if (!left || left->type != "Name") return {"", nullptr};
  return {left->str_field("id"), pointer->child("right")};
}

// The [begin, end) spans of the identifiers in squashed source text.
std::vector<std::pair<size_t, size_t>> identifier_spans(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> out;
  auto word = [&](size_t k) { return std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!word(i)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && word(j)) ++j;
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) out.emplace_back(i, j);  // not a number (1e5)
    i = j;
  }
  return out;
}

bool is_attribute(const std::string& text, size_t begin) { return begin > 0 && text[begin - 1] == '.'; }

// The expression's text without blanks, with every local name that has one plain definition
// replaced by that definition (recursively): two kernels that compute the same offsets from
// the same parameters compare equal.
std::string resolved(const KernelView& view, const PyNode& expr, int depth = 0) {
  std::string text = view.squashed_text(expr);
  if (depth > 8) return text;
  std::string out;
  size_t copied = 0;
  for (auto [begin, end] : identifier_spans(text)) {
    std::string id = text.substr(begin, end - begin);
    bool keyword_name = end < text.size() && text[end] == '=' && (end + 1 >= text.size() || text[end + 1] != '=');
    const auto& defs = view.definitions(id);
    bool inlined = defs.size() == 1 && defs[0].value && defs[0].stmt->type == "Assign";
    if (is_attribute(text, begin) || keyword_name || !inlined) continue;
    out += text.substr(copied, begin - copied) + "(" + resolved(view, *defs[0].value, depth + 1) + ")";
    copied = end;
  }
  return out + text.substr(copied);
}

std::set<std::string> identifiers(const std::string& text) {
  std::set<std::string> out;
  for (auto [begin, end] : identifier_spans(text))
    if (!is_attribute(text, begin)) out.insert(text.substr(begin, end - begin));
  return out;
}

struct LaunchCall {
  const PyNode* call = nullptr;
  std::string kernel;
};

// `name[grid](...)` calls under `from` whose name is a kernel of the task.
std::vector<LaunchCall> launch_calls(const KernelContext& ctx, const PyNode& from) {
  std::vector<LaunchCall> out;
  PyModule::walk(from, [&](const PyNode& n) {
    if (n.type != "Call") return;
    const PyNode* f = n.child("func");
    if (!f || f->type != "Subscript") return;
    const PyNode* v = f->child("value");
    if (!v || v->type != "Name") return;
    std::string name = v->str_field("id");
    if (ctx.task->kernel(name)) out.push_back({&n, name});
  });
  return out;
}

const PyNode* grid_of(const PyNode& call) {
  const PyNode* f = call.child("func");
  return f ? f->child("slice") : nullptr;
}

}  // namespace

KernelContext second_kernel_context(const KernelContext& ctx, const ScanThenPropagate& m) {
  KernelContext b;  // B's source only: the launch and the program in `ctx` are A's
  b.task = ctx.task;
  b.ast = ctx.ast;
  b.function = m.kernel_b;
  return b;
}

std::optional<ScanThenPropagate> match_scan_then_propagate(const KernelView& view, std::string& why) {
  const KernelContext& ctx = view.ctx();
  ScanThenPropagate m;
  auto none = [&](std::string reason) -> std::optional<ScanThenPropagate> {
    why = std::move(reason);
    return std::nullopt;
  };
  if (!ctx.ast || !ctx.task || !ctx.function) return none("no AST");

  // A: one store of a tl.cumsum of a loaded block.
  const PyNode* store_offset = nullptr;
  int other_stores = 0;
  for (const PyNode* store : view.stores()) {
    const PyNode* value = argument(*store, 1);
    if (!value) value = keyword(*store, "value");
    if (!is_call(value, "tl.cumsum")) {
      ++other_stores;
      continue;
    }
    if (m.scan_store) return none("the kernel stores two tl.cumsum results");
    m.scan_store = PyModule::enclosing_statement(*store);
    m.cumsum = value;
    std::tie(m.output_param, store_offset) = base_and_offset(KernelView::pointer_arg(*store));
  }
  if (!m.scan_store) return none("no tl.store of a tl.cumsum");
  if (m.scan_store->type != "Expr") return none("the tl.cumsum store is not a statement of its own");
  if (!store_offset || !view.is_pointer_param(m.output_param))
    return none("the scan's store address is not `pointer_parameter + offsets`");
  if (other_stores == 0) return none("the kernel stores nothing besides the scan (no block totals)");
  const PyNode* scanned = argument(*m.cumsum, 0);
  if (!scanned || scanned->type != "Name") return none("tl.cumsum does not scan a named block");
  const Definition* def = view.definition(*scanned);
  if (!def || !def->value || def->stmt->type != "Assign" || !is_call(def->value, "tl.load"))
    return none(fmt::format("`{}` is not assigned a tl.load", scanned->str_field("id")));
  m.input_load = def->value;
  auto [input, load_offset] = base_and_offset(KernelView::pointer_arg(*m.input_load));
  m.input_param = input;
  if (!load_offset || !view.is_pointer_param(m.input_param) || m.input_param == m.output_param)
    return none("the scanned block is not loaded from `another_pointer_parameter + offsets`");
  const std::string offsets_a = resolved(view, *load_offset);
  if (offsets_a != resolved(view, *store_offset))
    return none("the scan is stored at other offsets than its input is loaded from");
  for (const PyNode* load : view.loads())
    if (const PyNode* p = KernelView::pointer_arg(*load); p && view.root_pointer(*p) == m.output_param)
      return none("the kernel also reads its scan output");
  if (view.pointee_type(m.input_param).empty() ||
      view.pointee_type(m.input_param) != view.pointee_type(m.output_param))
    return none(fmt::format("the input ({}) and the output ({}) have other element types: the stored scan is "
                            "rounded to the output's",
                            view.pointee_type(m.input_param), view.pointee_type(m.output_param)));

  // The launch function: A's call, then the first later launch that passes A's output.
  const std::string kernel_a = ctx.function->str_field("name");
  auto all = launch_calls(ctx, ctx.ast->root());
  std::vector<LaunchCall> of_a;
  for (const auto& c : all)
    if (c.kernel == kernel_a) of_a.push_back(c);
  if (of_a.size() != 1) return none(fmt::format("{} launch calls of {} (one expected)", of_a.size(), kernel_a));
  m.launch_a = of_a.front().call;
  const PyNode* stmt_a = PyModule::enclosing_statement(*m.launch_a);
  const PyNode* function = stmt_a ? stmt_a->parent : nullptr;
  if (!function || function->type != "FunctionDef" || stmt_a->field != "body")
    return none("the launch call is not a statement of the launching function's body");
  const auto params_a = parameter_names(*ctx.function);
  const PyNode* out_arg = bound_argument(*m.launch_a, ctx.function, m.output_param);
  const PyNode* in_arg = bound_argument(*m.launch_a, ctx.function, m.input_param);
  if (!out_arg || out_arg->type != "Name" || !in_arg || in_arg->type != "Name")
    return none("the launch does not pass plain names for the scan's input and output");
  m.output_arg = out_arg->str_field("id");
  m.input_arg = in_arg->str_field("id");

  auto body = function->children_in("body");
  size_t at = 0;
  while (at < body.size() && body[at] != stmt_a) ++at;
  for (size_t i = at + 1; i < body.size() && !m.launch_b; ++i) {
    const PyNode& stmt = *body[i];
    auto written = PyModule::names_written(stmt);
    for (const auto& c : launch_calls(ctx, stmt))
      for (const auto& n : PyModule::names_read(*c.call))
        if (n == m.output_arg && !m.launch_b) {
          if (c.kernel == kernel_a) return none("the output is passed to the scan kernel again");
          m.launch_b = c.call;
          m.kernel_b = ctx.ast->function(c.kernel);
        }
    if (!m.launch_b && PyModule::names_read(stmt).count(m.output_arg))
      return none(fmt::format("line {} reads `{}` between the two launches", stmt.line, m.output_arg));
    if (written.count(m.output_arg) || written.count(m.input_arg))
      return none(fmt::format("line {} reassigns `{}` or `{}`", stmt.line, m.output_arg, m.input_arg));
  }
  if (!m.launch_b || !m.kernel_b) return none("no later launch reads the scan's output");

  // B: reads the output back once, at the same offsets, under the same mask, and stores it.
  const auto params_b = parameter_names(*m.kernel_b);
  for (const auto& p : params_b)
    if (const PyNode* a = bound_argument(*m.launch_b, m.kernel_b, p);
        a && a->type == "Name" && a->str_field("id") == m.output_arg) {
      if (!m.reread_param.empty()) return none("the output is passed twice to the second kernel");
      m.reread_param = p;
    }
  if (m.reread_param.empty()) return none("the second launch passes the output inside an expression");
  KernelContext ctx_b = second_kernel_context(ctx, m);
  KernelView view_b(ctx_b);
  const PyNode* reread_offset = nullptr;
  bool stores_back = false;
  for (const PyNode* load : PyModule::calls(*m.kernel_b, {"tl.load", "triton.language.load"})) {
    auto [base, offset] = base_and_offset(KernelView::pointer_arg(*load));
    if (base != m.reread_param) continue;
    if (m.reread_load) return none("the second kernel loads the output twice");
    m.reread_load = load;
    reread_offset = offset;
  }
  for (const PyNode* store : PyModule::calls(*m.kernel_b, {"tl.store", "triton.language.store"}))
    stores_back |= base_and_offset(KernelView::pointer_arg(*store)).first == m.reread_param;
  if (!m.reread_load || !reread_offset) return none("the second kernel does not load `output + offsets`");
  if (!stores_back) return none("the second kernel does not store the output");
  if (!view_b.definitions(m.reread_param).empty()) return none("the second kernel reassigns its output pointer");

  const std::string offsets_b = resolved(view_b, *reread_offset);
  if (offsets_a != offsets_b)
    return none(fmt::format("the second kernel reads `{}`, the first scanned `{}`", offsets_b, offsets_a));
  const PyNode* mask_a = KernelView::mask_arg(*m.input_load);
  const PyNode* mask_b = KernelView::mask_arg(*m.reread_load);
  std::string masks_a = mask_a ? resolved(view, *mask_a) : "", masks_b = mask_b ? resolved(view_b, *mask_b) : "";
  if (masks_a != masks_b) return none("the two loads have other masks");
  const PyNode* grid_a = grid_of(*m.launch_a);
  const PyNode* grid_b = grid_of(*m.launch_b);
  if (!grid_a || !grid_b || view.squashed_text(*grid_a) != view.squashed_text(*grid_b))
    return none("the two launches have other grids");
  // The parameters the offsets and masks read get the same launch expressions.
  for (const auto& id : identifiers(offsets_a + " " + masks_a)) {
    if (std::find(params_a.begin(), params_a.end(), id) == params_a.end()) continue;
    const PyNode* a = bound_argument(*m.launch_a, ctx.function, id);
    const PyNode* b = bound_argument(*m.launch_b, m.kernel_b, id);
    if (!a || !b || view.squashed_text(*a) != view.squashed_text(*b))
      return none(fmt::format("the two launches pass other values for `{}`", id));
  }
  return m;
}

}  // namespace tdx::l0
