#include "tritondx/rewrite/recipes/autotune_space.h"

#include <fmt/format.h>

namespace tdx::autotune_space {
namespace {

const nlohmann::json* autotuner_json(const KernelContext& ctx) {
  const KernelInfo* info = ctx.task ? ctx.task->kernel(ctx.kernel_name()) : nullptr;
  if (!info || !info->wrappers.is_array()) return nullptr;
  for (const auto& w : info->wrappers)
    if (w.is_object() && w.contains("configs") && w["configs"].is_array()) return &w;
  return nullptr;
}

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

bool matches_launch(const Config& c, const LaunchInfo& launch) {
  if (c.num_warps != launch.num_warps() || c.num_stages != launch.num_stages()) return false;
  for (const auto& [k, v] : c.kwargs.items())
    if (!launch.constexprs.contains(k) || launch.constexprs[k] != v) return false;
  return true;
}

}  // namespace

Config Config::from_json(const nlohmann::json& j) {
  Config c;
  if (j.contains("kwargs") && j["kwargs"].is_object()) c.kwargs = j["kwargs"];
  c.num_warps = j.value("num_warps", 4);
  c.num_stages = j.value("num_stages", 3);
  c.num_ctas = j.value("num_ctas", 1);
  if (j.contains("maxnreg") && j["maxnreg"].is_number_integer()) c.maxnreg = j["maxnreg"].get<int>();
  return c;
}

Expected<std::optional<Space>> of(const KernelContext& ctx, int line) {
  const nlohmann::json* tuner = autotuner_json(ctx);
  if (!tuner) return std::optional<Space>{};
  Space s;
  for (const auto& c : (*tuner)["configs"]) s.configs.push_back(Config::from_json(c));
  if (s.configs.empty()) return fail(Stage::Rewrite, "the autotuner has no configs", line);
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
  if (ctx.launch)
    for (size_t i = 0; i < s.configs.size(); ++i)
      if (matches_launch(s.configs[i], *ctx.launch)) {
        s.diagnosed = i;
        break;
      }
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
  const nlohmann::json* tuner = autotuner_json(ctx);
  if (!tuner) return false;
  if (what == "num_warps" || what == "num_stages" || what == "maxnreg" || what == "num_ctas") return true;
  for (const auto& c : (*tuner)["configs"])
    if (c.contains("kwargs") && c["kwargs"].is_object() && c["kwargs"].contains(std::string(what))) return true;
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
