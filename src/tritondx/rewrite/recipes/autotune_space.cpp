#include "tritondx/rewrite/recipes/autotune_space.h"

#include <fmt/format.h>

namespace tdx::autotune_space {
namespace {

const PyNode* autotune_decorator(const KernelContext& ctx) {
  if (!ctx.function) return nullptr;
  for (const PyNode* d : ctx.function->children_in("decorator_list"))
    if (d->type == "Call" && call_name(*d).ends_with("autotune")) return d;
  return nullptr;
}

std::string python_value(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_string()) return nlohmann::json(v.get<std::string>()).dump();
  return v.dump();
}

}  // namespace

Expected<std::optional<Space>> of(const KernelContext& ctx, int line) {
  auto configs = ctx.task ? autotune::configs_of(*ctx.task, ctx.kernel_name(), ctx.launch) : std::nullopt;
  if (!configs) return std::optional<Space>{};
  Space s;
  s.configs = configs->configs;
  s.diagnosed = configs->diagnosed;
  s.decorator = autotune_decorator(ctx);
  if (!s.decorator)
    return fail(Stage::Rewrite, "the kernel is autotuned, but not by an @autotune decorator on its definition", line);
  s.configs_expr = keyword(*s.decorator, "configs");
  if (!s.configs_expr) s.configs_expr = argument(*s.decorator, 0);
  if (!s.configs_expr || s.configs_expr->type == "Starred")
    return fail(Stage::Rewrite, "the autotune decorator passes no configs argument the recipe can extend",
                s.decorator->line);
  std::string callee = call_name(*s.decorator);
  s.config_callee = callee.substr(0, callee.size() - std::string_view("autotune").size()) + "Config";
  if (s.config_callee == "Config" && ctx.task && ctx.task->source.find("import triton\n") != std::string::npos)
    s.config_callee = "triton.Config";
  return std::optional<Space>{std::move(s)};
}

std::set<std::string> heuristic_values(const KernelContext& ctx) {
  std::set<std::string> out;
  const KernelInfo* info = ctx.task ? ctx.task->kernel(ctx.kernel_name()) : nullptr;
  if (!info || !info->wrappers.is_array()) return out;
  for (const auto& w : info->wrappers)
    if (w.is_object() && w.contains("values") && w["values"].is_array())
      for (const auto& v : w["values"])
        if (v.is_string()) out.insert(v.get<std::string>());
  return out;
}

bool decides(const KernelContext& ctx, std::string_view what) {
  if (heuristic_values(ctx).contains(std::string(what))) return true;
  auto tuner = ctx.task ? autotune::configs_of(*ctx.task, ctx.kernel_name(), nullptr) : std::nullopt;
  if (!tuner) return false;
  if (what == "num_warps" || what == "num_stages" || what == "maxnreg" || what == "num_ctas") return true;
  for (const auto& c : tuner->configs)
    if (c.kwargs.contains(std::string(what))) return true;
  return false;
}

std::string to_python(const Config& c, const std::string& callee) {
  std::string kwargs;
  for (const auto& [k, v] : c.kwargs.items())
    kwargs += fmt::format("{}{}: {}", kwargs.empty() ? "" : ", ", nlohmann::json(k).dump(), python_value(v));
  std::string out = fmt::format("{}({{{}}}, num_warps={}, num_stages={}", callee, kwargs, c.num_warps, c.num_stages);
  if (c.num_ctas != 1) out += fmt::format(", num_ctas={}", c.num_ctas);
  if (c.maxnreg) out += fmt::format(", maxnreg={}", *c.maxnreg);
  return out + ")";
}

Expected<TextEdit> add_config(const KernelContext& ctx, const Space& space, const Config& added, int line) {
  if (!space.configs_expr) return fail(Stage::Rewrite, "no configs expression to extend", line);
  std::string text = to_python(added, space.config_callee);
  const PyNode& e = *space.configs_expr;
  if (e.type == "List") {
    auto elts = e.children_in("elts");
    if (elts.empty()) return TextEdit::replace(e, "[" + text + "]");
    return TextEdit::insert_before(*elts.front(), text + ", ");
  }
  // Any other expression (a comprehension, a name bound to a list, a call): one edit keeps it
  // whole behind the new config.
  if (!ctx.task) return fail(Stage::Rewrite, "no task source", line);
  return TextEdit::replace(e, fmt::format("[{}] + ({})", text, node_text(e, ctx.task->lines)));
}

}  // namespace tdx::autotune_space
