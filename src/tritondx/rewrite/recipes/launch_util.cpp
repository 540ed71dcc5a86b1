#include "tritondx/rewrite/recipes/launch_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace tdx::launch_util {
namespace {

// `h = kernel.warmup(...)` and one `h[grid](...)` in the same function (the fused-softmax
// tutorial's way of reading the compiled kernel's registers before it launches it).
std::optional<LaunchSite> warmup_launch(const PyNode& root, const std::string& kernel) {
  std::optional<LaunchSite> found;
  int count = 0;
  auto in_function = [](const PyNode& node, const PyNode& function) {
    const PyNode* p = node.parent;
    while (p && p->type != "FunctionDef") p = p->parent;
    return p == &function;
  };
  PyModule::walk(root, [&](const PyNode& n) {
    if (n.type != "FunctionDef") return;
    PyModule::walk(n, [&](const PyNode& assign) {
      if (assign.type != "Assign" || assign.children_in("targets").size() != 1 || !in_function(assign, n)) return;
      const PyNode* target = assign.child("targets", 0);
      const PyNode* warmup = assign.child("value");
      if (!target || target->type != "Name" || !warmup || warmup->type != "Call") return;
      std::string callee = call_name(*warmup);
      if (callee != kernel + ".warmup" && !callee.ends_with("." + kernel + ".warmup")) return;
      std::string handle = target->str_field("id");
      PyModule::walk(n, [&](const PyNode& call) {
        if (call.type != "Call" || !in_function(call, n)) return;
        const PyNode* f = call.child("func");
        if (!f || f->type != "Subscript" || !f->child("value") || dotted_name(*f->child("value")) != handle) return;
        ++count;
        found = LaunchSite{&call, f->child("slice"), &n, warmup};
      });
    });
  });
  if (count != 1) return std::nullopt;
  return found;
}

}  // namespace

Expected<LaunchSite> find_launch(const KernelContext& ctx, int line, bool through_warmup) {
  if (!ctx.ast) return fail(Stage::Rewrite, "no AST of the task module", line);
  std::string kernel = ctx.kernel_name();
  std::vector<LaunchSite> sites;
  const PyNode* current_function = nullptr;
  std::function<void(const PyNode&)> visit = [&](const PyNode& n) {
    const PyNode* saved = current_function;
    if (n.type == "FunctionDef") current_function = &n;
    if (n.type == "Call")
      if (const PyNode* f = n.child("func"); f && f->type == "Subscript")
        if (const PyNode* v = f->child("value")) {
          std::string callee = dotted_name(*v);
          if (callee == kernel || callee.ends_with("." + kernel)) sites.push_back({&n, f->child("slice"), current_function});
        }
    for (const auto& c : n.children) visit(c);
    current_function = saved;
  };
  visit(ctx.ast->root());
  if (sites.empty() && through_warmup)
    if (auto handle = warmup_launch(ctx.ast->root(), kernel)) sites.push_back(*handle);
  if (sites.empty())
    return fail(Stage::Rewrite, fmt::format("no `{}[grid](...)` launch call in the task (an indirect launch)", kernel),
                line);
  // Several calls: the capture recorded the line of the task that made the launch.
  if (sites.size() > 1 && ctx.launch && ctx.launch->call_line > 0)
    std::erase_if(sites, [&](const LaunchSite& s) {
      return ctx.launch->call_line < s.call->line || ctx.launch->call_line > s.call->end_line;
    });
  if (sites.empty())
    return fail(Stage::Rewrite,
                fmt::format("the capture launched {} from line {}, which holds none of its `{}[grid](...)` calls",
                            kernel, ctx.launch->call_line, kernel),
                line);
  if (sites.size() > 1)
    return fail(Stage::Rewrite,
                fmt::format("{} launch calls of {} (lines {} and {}): which one the capture used is unknown", sites.size(),
                            kernel, sites[0].call->line, sites[1].call->line),
                sites[0].call->line);
  if (!sites[0].grid) return fail(Stage::Rewrite, "launch call without a grid", sites[0].call->line);
  return sites[0];
}

std::optional<Diagnostic> refuse_wrapped(const KernelContext& ctx, int line) {
  const KernelInfo* info = ctx.task ? ctx.task->kernel(ctx.kernel_name()) : nullptr;
  bool wrapped = info && info->wrappers.is_array() && !info->wrappers.empty();
  if (ctx.function)
    for (const PyNode* d : ctx.function->children_in("decorator_list")) {
      std::string name = d->type == "Call" ? call_name(*d) : dotted_name(*d);
      if (name.ends_with("autotune") || name.ends_with("heuristics")) wrapped = true;
    }
  if (!wrapped) return std::nullopt;
  return Diagnostic{Stage::Rewrite, {}, line, 0,
                    "the kernel is wrapped in @triton.autotune/@triton.heuristics: its configs decide this value, "
                    "not the launch call"};
}

std::optional<int> unmasked_block_access(const l0::KernelView& view, const std::string& block) {
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* ptr = l0::KernelView::pointer_arg(*op);
    if (!ptr || l0::KernelView::mask_arg(*op)) continue;
    if (view.flows_from(*ptr, [&](const PyNode& n) {
          if (n.type != "Call" || normalize_triton_name(call_name(n)) != "tl.arange") return false;
          const PyNode* size = argument(n, 1);
          return size && size->type == "Name" && size->str_field("id") == block;
        }))
      return op->line;
  }
  return std::nullopt;
}

Expected<TextEdit> insert_inner_heuristic(const KernelContext& ctx, const std::string& values, int line) {
  if (!ctx.function || !ctx.task) return fail(Stage::Rewrite, "no kernel AST", line);
  const PyNode* jit = nullptr;
  for (const PyNode* d : ctx.function->children_in("decorator_list")) {
    std::string name = d->type == "Call" ? call_name(*d) : dotted_name(*d);
    if (name == "jit" || name.ends_with(".jit")) jit = d;
  }
  if (!jit) return fail(Stage::Rewrite, "no @triton.jit decorator to put a heuristic above", line);
  std::string jit_name = jit->type == "Call" ? call_name(*jit) : dotted_name(*jit);
  std::string heuristics = jit_name.substr(0, jit_name.size() - 3) + "heuristics";
  return TextEdit::insert_lines(
      jit->line, fmt::format("{}@{}({{{}}})\n", indentation_of(ctx.task->source, jit->line), heuristics, values));
}

const PyNode* passed_argument(const KernelContext& ctx, const PyNode& call, const std::string& param) {
  if (const PyNode* kw = keyword(call, param)) return kw;
  const KernelInfo* info = ctx.task ? ctx.task->kernel(ctx.kernel_name()) : nullptr;
  if (!info) return nullptr;
  for (size_t i = 0; i < info->params.size(); ++i)
    if (info->params[i].name == param) {
      const PyNode* a = argument(call, static_cast<int>(i));
      return a && a->type != "Starred" ? a : nullptr;
    }
  return nullptr;
}

TextEdit set_keyword(const PyNode& call, const std::string& name, const std::string& value) {
  if (const PyNode* v = keyword(call, name)) return TextEdit::replace(*v, value);
  // Append after the last argument or keyword (whichever ends last).
  const PyNode* last = last_argument(call);
  if (!last) {
    // `kernel[grid]()`: insert before the closing parenthesis.
    return TextEdit{call.end_line, call.end_col - 1, call.end_line, call.end_col - 1, fmt::format("{}={}", name, value)};
  }
  return TextEdit::insert_after(*last, fmt::format(", {}={}", name, value));
}

Expected<std::vector<TextEdit>> pass_new_parameter(const KernelContext& ctx, const LaunchSite& site,
                                                   const std::string& name, const std::string& value, int line) {
  if (!site.warmup) return std::vector<TextEdit>{set_keyword(*site.call, name, value)};
  const KernelInfo* info = ctx.task ? ctx.task->kernel(ctx.kernel_name()) : nullptr;
  const auto positional = site.call->children_in("args");
  const bool keywords = std::any_of(site.call->children.begin(), site.call->children.end(), [](const PyNode& c) {
    return c.field == "keywords" && c.str_field("arg") != "stream";
  });
  const bool starred = std::any_of(positional.begin(), positional.end(), [](const PyNode* a) { return a->type == "Starred"; });
  if (!info || keywords || starred || positional.empty() || positional.size() != info->params.size())
    return fail(Stage::Rewrite,
                fmt::format("the compiled handle's launch on line {} does not pass each of {}'s {} parameters "
                            "positionally, so {} has no place in it",
                            site.call->line, ctx.kernel_name(), info ? info->params.size() : 0, name),
                line);
  return std::vector<TextEdit>{set_keyword(*site.warmup, name, value), TextEdit::insert_after(*positional.back(), ", " + value)};
}

Expected<TextEdit> append_constexpr_param(const KernelContext& ctx, const std::string& name, int line_for_errors) {
  return append_params(ctx, fmt::format("{}: {}.constexpr", name, tl_prefix(ctx)), line_for_errors);
}

Expected<const PyNode*> last_param_to_append_after(const KernelContext& ctx, const std::string& declarations,
                                                   int line_for_errors) {
  const PyNode* args = ctx.function ? ctx.function->child("args") : nullptr;
  const PyNode* last = nullptr;
  if (args)
    for (const PyNode* a : args->children_in("args")) last = a;
  if (!last || !args->children_in("defaults").empty() || args->child("vararg") || args->child("kwarg") ||
      !args->children_in("kwonlyargs").empty())
    return fail(Stage::Rewrite,
                fmt::format("the kernel's parameter list has defaults or variadics; no place for {}", declarations),
                line_for_errors);
  return last;
}

Expected<TextEdit> append_params(const KernelContext& ctx, const std::string& declarations, int line_for_errors) {
  const PyNode* last = TDX_TRY(last_param_to_append_after(ctx, declarations, line_for_errors));
  return TextEdit::insert_after(*last, ", " + declarations);
}

std::string tl_prefix(const KernelContext& ctx) {
  if (!ctx.ast) return "tl";
  bool has_triton = false;
  for (const PyNode* stmt : ctx.ast->root().children_in("body")) {
    if (stmt->type == "Import")
      for (const PyNode* alias : stmt->children_in("names")) {
        std::string name = alias->str_field("name"), as = alias->str_field("asname");
        if (name == "triton.language") return as.empty() ? "triton.language" : as;
        if (name == "triton") has_triton = true;
      }
    if (stmt->type == "ImportFrom" && stmt->str_field("module") == "triton")
      for (const PyNode* alias : stmt->children_in("names"))
        if (alias->str_field("name") == "language") {
          std::string as = alias->str_field("asname");
          return as.empty() ? "language" : as;
        }
  }
  return has_triton ? "triton.language" : "tl";
}

std::set<int> scaled_axes(const l0::KernelView& view, const std::string& name) {
  std::set<int> axes;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type != "BinOp" || n.fields.value("op", "") != "Mult") return;
    const PyNode* l = n.child("left");
    const PyNode* r = n.child("right");
    if (!l || !r) return;
    const PyNode* other = nullptr;
    if (l->type == "Name" && l->str_field("id") == name && !view.definition(*l)) other = r;
    else if (r->type == "Name" && r->str_field("id") == name && !view.definition(*r)) other = l;
    if (!other) return;
    view.visit_flow(*other, [&](const PyNode& x) {
      if (x.type == "Call" && normalize_triton_name(call_name(x)) == "tl.program_id") {
        const PyNode* a = argument(x, 0);
        if (!a) a = keyword(x, "axis");
        auto v = a ? int_constant(*a) : std::optional<long long>(0);
        axes.insert(v ? static_cast<int>(*v) : -1);
      }
      return true;
    });
  });
  return axes;
}

std::optional<TextEdit> remove_keyword(const PyNode& call, const std::string& name) {
  std::vector<const PyNode*> items;
  for (const auto& c : call.children)
    if (c.field == "args" || c.field == "keywords") items.push_back(&c);
  std::sort(items.begin(), items.end(),
            [](const PyNode* a, const PyNode* b) { return std::pair(a->line, a->col) < std::pair(b->line, b->col); });
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i]->field != "keywords" || items[i]->str_field("arg") != name) continue;
    const PyNode& kw = *items[i];
    if (i > 0) return TextEdit{items[i - 1]->end_line, items[i - 1]->end_col, kw.end_line, kw.end_col, ""};
    if (i + 1 < items.size()) return TextEdit{kw.line, kw.col, items[i + 1]->line, items[i + 1]->col, ""};
    return TextEdit{kw.line, kw.col, kw.end_line, kw.end_col, ""};
  }
  return std::nullopt;
}

int def_header_end(const PyNode& function) {
  const PyNode* first = function.child("body", 0);
  return first ? first->line - 1 : function.line;
}

const PyNode* grid_expression(const LaunchSite& site) {
  if (site.grid && site.grid->type == "Name")
    if (const PyNode* def = single_assignment(*site.enclosing, site.grid->str_field("id"))) return def->child("value");
  return site.grid;
}

Expected<std::string> lambda_grid_in_kernel_terms(const KernelContext& ctx, const LaunchSite& site, size_t dim,
                                                  int line) {
  const PyNode* grid = grid_expression(site);
  const PyNode* body = grid && grid->type == "Lambda" ? grid->child("body") : nullptr;
  const PyNode* params = grid && grid->type == "Lambda" ? grid->child("args") : nullptr;
  auto lambda_args = params ? params->children_in("args") : std::vector<const PyNode*>{};
  if (!body || body->type != "Tuple" || lambda_args.size() != 1 || body->children_in("elts").size() <= dim)
    return fail(Stage::Rewrite, "the grid is not a `lambda META: (...)` returning a tuple", line);
  const std::string meta = lambda_args[0]->str_field("arg");
  const KernelInfo* info = ctx.task ? ctx.task->kernel(ctx.kernel_name()) : nullptr;
  if (!info) return fail(Stage::Rewrite, "no kernel parameters", line);
  auto is_param = [&](const std::string& n) {
    return std::any_of(info->params.begin(), info->params.end(), [&](const KernelParam& p) { return p.name == n; });
  };
  const std::string tl = tl_prefix(ctx);
  std::function<Expected<std::string>(const PyNode&)> text = [&](const PyNode& n) -> Expected<std::string> {
    if (n.type == "Constant" && int_constant(n)) return std::to_string(*int_constant(n));
    // META["BLOCK_M"] or META.BLOCK_M: the config's constexpr.
    std::string key;
    if (n.type == "Subscript" && n.child("value") && dotted_name(*n.child("value")) == meta && n.child("slice") &&
        n.child("slice")->type == "Constant")
      key = n.child("slice")->fields.value("value", nlohmann::json()).is_string()
                ? n.child("slice")->fields["value"].get<std::string>()
                : "";
    if (n.type == "Attribute" && n.child("value") && dotted_name(*n.child("value")) == meta) key = n.str_field("attr");
    if (!key.empty()) {
      if (!is_param(key)) return fail(Stage::Rewrite, fmt::format("the grid reads {}[\"{}\"], not a kernel parameter", meta, key), line);
      return key;
    }
    if (n.type == "Name") {
      const std::string id = n.str_field("id");
      for (const auto& p : info->params)
        if (const PyNode* a = passed_argument(ctx, *site.call, p.name); a && a->type == "Name" && a->str_field("id") == id)
          return p.name;
      return fail(Stage::Rewrite, fmt::format("the grid reads {}, which the launch call passes to no kernel parameter", id), line);
    }
    if (n.type == "BinOp") {
      static const std::map<std::string, std::string> ops = {{"Add", "+"}, {"Sub", "-"}, {"Mult", "*"}, {"FloorDiv", "//"}};
      auto op = ops.find(n.str_field("op"));
      if (op == ops.end() || !n.child("left") || !n.child("right"))
        return fail(Stage::Rewrite, fmt::format("the grid uses the operator {}", n.str_field("op")), line);
      return fmt::format("({} {} {})", TDX_TRY(text(*n.child("left"))), op->second, TDX_TRY(text(*n.child("right"))));
    }
    if (n.type == "Call" && (call_name(n) == "triton.cdiv" || call_name(n) == "cdiv") && n.children_in("args").size() == 2)
      return fmt::format("{}.cdiv({}, {})", tl, TDX_TRY(text(*argument(n, 0))), TDX_TRY(text(*argument(n, 1))));
    return fail(Stage::Rewrite, fmt::format("the grid's `{}` has no counterpart in the kernel", node_text(n, ctx.task->lines)), line);
  };
  std::string out = TDX_TRY(text(*body->children_in("elts")[dim]));
  if (body->children_in("elts")[dim]->type == "BinOp") out = out.substr(1, out.size() - 2);  // no outer parentheses
  return out;
}

const PyNode* other_use_of_value(const LaunchSite& site, long long value,
                                 const std::function<bool(const PyNode&)>& skip) {
  auto within_skipped = [&](const PyNode* n) {
    for (; n && n != site.enclosing; n = n->parent)
      if (skip(*n)) return true;
    return false;
  };
  // `NAME = value` (or a dict, list or tuple literal holding it: AMD's `extra_kargs = {...}`
  // passed as `**extra_kargs`) whose every read of NAME, if any, is inside a skipped node.
  auto feeds_only_skipped = [&](const PyNode& constant) {
    const PyNode* held = &constant;
    while (held->parent && (held->parent->type == "Dict" || held->parent->type == "List" ||
                            held->parent->type == "Tuple") &&
           (held->field == "values" || held->field == "elts"))
      held = held->parent;
    const PyNode* assign = held->parent;
    if (!assign || assign->type != "Assign" || held->field != "value") return false;
    auto targets = assign->children_in("targets");
    if (targets.size() != 1 || targets[0]->type != "Name") return false;
    const std::string name = targets[0]->str_field("id");
    bool only_skipped = true;
    PyModule::walk(*site.enclosing, [&](const PyNode& n) {
      if (n.type != "Name" || n.str_field("id") != name || n.fields.value("ctx", "") != "Load") return;
      only_skipped = only_skipped && within_skipped(&n);
    });
    return only_skipped;  // a name never read feeds nothing (a launch option a recipe replaced)
  };
  const PyNode* other = nullptr;
  PyModule::walk(*site.enclosing, [&](const PyNode& n) {
    if (!other && n.type == "Constant" && int_constant(n) == value && !skip(n) && !feeds_only_skipped(n)) other = &n;
  });
  return other;
}

}  // namespace tdx::launch_util
