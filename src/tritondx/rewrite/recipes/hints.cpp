// add-multiple-of-hint, add-contiguity-hint: give AxisInfo the divisibility or contiguity the
// task's data has, only where the captured launch shows it holds.
#include <fmt/format.h>

#include <numeric>

#include "tritondx/source/block_index.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

// ---------------------------------------------------------------------------------------------
// add-multiple-of-hint

class MultipleOfHintRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "add-multiple-of-hint"; }
  std::string_view description() const override {
    return "Makes an integer argument's divisibility by 16 visible to the compiler. In Triton 3.6 "
           "`n = tl.multiple_of(n, 16)` on a kernel argument is a no-op (the hint is set on the function "
           "argument, which the frontend ignores), so the recipe uses the mechanism that works: it removes "
           "the argument from `do_not_specialize` in the @triton.jit decorator, and the JIT specializes it "
           "(tt.divisibility = 16) whenever the launched value is a multiple of 16 — checked at every "
           "launch, so it is also correct for shapes that are not. Applies only when the captured value is "
           "a multiple of 16. Proposed by l0-missing-alignment-hints, "
           "l3-vectorization-lost and l2-narrow-global-access; refuses the arguments it cannot help.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// The names a proposal asks to hint, with the divisor it claims.
std::vector<std::pair<std::string, long long>> hinted_names(const nlohmann::json& p) {
  std::vector<std::pair<std::string, long long>> out;
  if (p.contains("param") && p["param"].is_string()) out.emplace_back(p["param"], p.value("multiple_of", 16LL));
  if (p.contains("value") && p["value"].is_string()) out.emplace_back(p["value"], p.value("multiple", 16LL));
  if (p.contains("hints") && p["hints"].is_object())
    for (const auto& [k, v] : p["hints"].items()) out.emplace_back(k, v.is_number_integer() ? v.get<long long>() : 0);
  return out;
}

Expected<std::vector<TextEdit>> MultipleOfHintRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  int line = in.finding.loc.line;
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  auto names = hinted_names(in.proposal.params);
  if (names.empty()) return fail(Stage::Rewrite, "the proposal names no argument to hint", line);

  // The @triton.jit(do_not_specialize=[...]) decorator.
  const PyNode* jit = nullptr;
  const PyNode* dns = nullptr;
  for (const PyNode* d : ctx.function->children_in("decorator_list"))
    if (d->type == "Call" && (call_name(*d) == "triton.jit" || call_name(*d) == "jit")) {
      jit = d;
      dns = keyword(*d, "do_not_specialize");
    }
  const KernelInfo* info = ctx.task->kernel(ctx.kernel_name());
  std::vector<std::string> drop, reasons;
  for (const auto& [name, divisor] : names) {
    auto v = ctx.launch->int_arg(name);
    const KernelParam* param = nullptr;
    if (info)
      for (const auto& p : info->params)
        if (p.name == name) param = &p;
    if (!param || !v) {
      reasons.push_back(fmt::format("{} is not an integer argument of the kernel", name));
      continue;
    }
    if (*v % 16 != 0) {
      reasons.push_back(fmt::format("{}={} is not a multiple of 16: the JIT cannot specialize it, and a "
                                    "tl.multiple_of hint on a kernel argument is dropped by Triton 3.6",
                                    name, *v));
      continue;
    }
    if (!param->do_not_specialize) {
      reasons.push_back(fmt::format("{}={} is already specialized by the JIT", name, *v));
      continue;
    }
    drop.push_back(name);
  }
  if (drop.empty()) {
    std::string why;
    for (const auto& r : reasons) why += (why.empty() ? "" : "; ") + r;
    return fail(Stage::Rewrite, why, line);
  }
  if (!jit || !dns || (dns->type != "List" && dns->type != "Tuple"))
    return fail(Stage::Rewrite, "do_not_specialize is not a literal list in the @triton.jit decorator", line);

  // Rebuild the decorator without the dropped names.
  auto params_index = [&](const std::string& name) {
    for (size_t i = 0; info && i < info->params.size(); ++i)
      if (info->params[i].name == name) return static_cast<long long>(i);
    return -1LL;
  };
  std::vector<std::string> kept;
  for (const PyNode* e : dns->children_in("elts")) {
    bool dropped = false;
    for (const auto& n : drop) {
      if (e->type == "Constant" && e->str_field("value") == n) dropped = true;
      if (auto i = int_constant(*e); i && *i == params_index(n)) dropped = true;
    }
    if (!dropped) kept.push_back(recipe_util::text(ctx, *e));
  }
  std::vector<std::string> args;
  for (const auto& c : jit->children) {
    if (c.field == "args") args.push_back(recipe_util::text(ctx, c));
    if (c.field != "keywords") continue;
    if (c.str_field("arg") != "do_not_specialize") {
      args.push_back(recipe_util::text(ctx, c));
    } else if (!kept.empty()) {
      std::string list;
      for (const auto& k : kept) list += (list.empty() ? "" : ", ") + k;
      args.push_back(fmt::format("do_not_specialize=[{}]", list));
    }
  }
  std::string func = recipe_util::text(ctx, *jit->child("func"));
  std::string joined;
  for (const auto& a : args) joined += (joined.empty() ? "" : ", ") + a;
  return std::vector<TextEdit>{TextEdit::replace(*jit, args.empty() ? func : fmt::format("{}({})", func, joined))};
}

// ---------------------------------------------------------------------------------------------
// add-contiguity-hint

class ContiguityHintRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "add-contiguity-hint"; }
  std::string_view description() const override {
    return "Wraps a contiguous block index taken modulo a size, `(start + tl.arange(0, BLOCK)) % N`, in "
           "`tl.max_contiguous(tl.multiple_of(..., G), G)`: AxisInfo gives `x % N` contiguity 1 unless N "
           "is known divisible, but when G divides both N and BLOCK no run of G lanes wraps, so runs of G "
           "are contiguous and start at multiples of G. G is the power-of-two part of gcd(N, BLOCK), "
           "checked against the captured launch; the hint is a promise for the task's shapes (N % G == 0). "
           "Proposed by l0-missing-alignment-hints for a wrapped index.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> ContiguityHintRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  const auto& p = in.proposal.params;
  int line = in.finding.loc.line;
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  std::string expression = p.value("expression", "");
  long long g = p.value("multiple_of", 0LL);
  if (expression.empty() || g < 2 || (g & (g - 1)) != 0 || p.value("max_contiguous", 0LL) != g)
    return fail(Stage::Rewrite, "the proposal names no wrapped expression and power-of-two run", line);
  KernelView view(ctx);
  const PyNode* mod = nullptr;
  PyModule::walk(*ctx.function, [&](const PyNode& n) {
    if (!mod && n.type == "BinOp" && n.fields.value("op", "") == "Mod" && n.line == line &&
        recipe_util::text(ctx, n) == expression)
      mod = &n;
  });
  if (!mod) return fail(Stage::Rewrite, fmt::format("`{}` is not on line {} of the kernel", expression, line), line);
  // Re-check the promise against the captured launch: N % G == 0 and BLOCK % G == 0 with block
  // starts at multiples of BLOCK.
  const PyNode* rhs = mod->child("right");
  auto n = rhs ? view.value(*rhs) : std::nullopt;
  auto bi = l0::decompose_block_index(view, *mod->child("left"));
  if (!n || !bi) return fail(Stage::Rewrite, "cannot evaluate the wrapped index for the captured launch", line);
  if (*n % g != 0 || bi->block % g != 0 || bi->start.lo % g != 0)
    return fail(Stage::Rewrite,
                fmt::format("runs of {} lanes can wrap: N={}, block {}, first start {}", g, *n, bi->block, bi->start.lo),
                line);
  if (auto blocks = bi->blocks(); !blocks && !bi->start.is_point())
    return fail(Stage::Rewrite, "the block starts do not step by the block", line);
  std::string tl = launch_util::tl_prefix(ctx);
  return std::vector<TextEdit>{
      TextEdit::replace(*mod, fmt::format("{0}.max_contiguous({0}.multiple_of({1}, {2}), {2})", tl, expression, g))};
}

}  // namespace

std::unique_ptr<Recipe> make_add_multiple_of_hint_recipe() { return std::make_unique<MultipleOfHintRecipe>(); }
std::unique_ptr<Recipe> make_add_contiguity_hint_recipe() { return std::make_unique<ContiguityHintRecipe>(); }

}  // namespace tdx
