// divisibility-by-construction: an integer argument whose value is a multiple of 2..8 (never
// specialized: the JIT only marks multiples of 16) is rebuilt as `(a // d) * d` under a constexpr
// flag the launch computes, so AxisInfo sees the divisibility the data has.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

class DivisibilityByConstructionRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "divisibility-by-construction"; }
  std::string_view description() const override {
    return "Shows the compiler the divisibility an integer argument has when it is a multiple of 2, 4 or 8 "
           "but not of 16: Triton's JIT specializes only multiples of 16 (tt.divisibility = 16) and drops a "
           "tl.multiple_of hint on an argument, so a row stride or bound of 3000 fp16 elements (8 x 375) "
           "leaves every access scalar. For each integer argument that reaches a load's or store's address "
           "or mask and whose captured value qualifies, the kernel gets a flag `<ARG>_MULTIPLE_OF_<d>: "
           "tl.constexpr` (d the largest power of two up to 8 dividing the value) and starts with "
           "`if FLAG: arg = arg // d * d`, and the launch passes `FLAG=<arg> % d == 0`. Under the flag the "
           "division is exact, so the value is unchanged, and AxisInfo derives divisibility d from the "
           "multiply; other launches keep the argument as it was. Proposed by l3-vectorization-lost and "
           "l0-mask-blocks-vectorization.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// Integer parameters read (through local definitions) by the address or the mask of a load or store.
std::set<std::string> memory_index_params(const KernelView& view) {
  std::set<std::string> out;
  auto collect = [&](const PyNode* expr) {
    if (!expr) return;
    view.visit_flow(*expr, [&](const PyNode& n) {
      if (n.type == "Name") {
        std::string id = n.str_field("id");
        std::string sig = view.signature(id);
        if (view.is_param(id) && (sig == "i32" || sig == "i64" || sig == "u32" || sig == "u64")) out.insert(id);
      }
      return true;
    });
  };
  for (const PyNode* op : view.loads()) {
    collect(KernelView::pointer_arg(*op));
    collect(KernelView::mask_arg(*op));
  }
  for (const PyNode* op : view.stores()) {
    collect(KernelView::pointer_arg(*op));
    collect(KernelView::mask_arg(*op));
  }
  return out;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

Expected<std::vector<TextEdit>> DivisibilityByConstructionRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.launch || !ctx.task) return refuse("no kernel AST or captured launch");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  std::set<std::string> indexing = memory_index_params(view);

  // The arguments the proposal names must qualify; the others that do come along.
  std::vector<std::string> named;
  if (in.proposal.params.contains("args"))
    for (const auto& a : in.proposal.params["args"])
      if (a.is_string()) named.push_back(a.get<std::string>());
  if (named.empty()) return refuse("the proposal names no argument");
  std::vector<std::pair<std::string, long long>> chosen;  // (argument, d)
  for (const auto& name : named) {
    if (!indexing.contains(name))
      return refuse(fmt::format("{} is not an integer argument of a load's or store's address or mask", name));
    auto v = ctx.launch->int_arg(name);
    if (!v) return refuse(fmt::format("the captured launch has no integer value for {}", name));
    long long d = l0::unspecialized_divisor(*v);
    if (d == 0)
      return refuse(fmt::format("{}={} is {}", name, *v,
                                *v % 16 == 0 ? "a multiple of 16: the JIT specializes it already"
                                             : "odd: no divisibility to show"));
    if (view.is_param(fmt::format("{}_MULTIPLE_OF_{}", upper(name), d)))
      return refuse(fmt::format("the kernel already rebuilds {} as a multiple of {}", name, d));
  }
  for (const auto& name : indexing) {
    auto v = ctx.launch->int_arg(name);
    long long d = v ? l0::unspecialized_divisor(*v) : 0;
    if (d != 0 && !view.is_param(fmt::format("{}_MULTIPLE_OF_{}", upper(name), d))) chosen.emplace_back(name, d);
  }

  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const auto body = ctx.function->children_in("body");
  if (body.empty()) return refuse("the kernel has no body");
  const PyNode* first = body.front();
  // After a docstring.
  if (first->type == "Expr" && first->child("value") && first->child("value")->type == "Constant" &&
      first->child("value")->fields.value("value", nlohmann::json()).is_string() && body.size() > 1)
    first = body[1];
  std::string indent = indentation_of(ctx.task->source, first->line);
  std::string inner = indent + "    ";
  const std::string tl = launch_util::tl_prefix(ctx);
  const PyNode* last_param = TDX_TRY(launch_util::last_param_to_append_after(ctx, "the flags", line));
  const PyNode* first_param = ctx.function->child("args")->child("args", 0);
  const PyNode* last_arg = last_argument(*site.call);
  if (!last_arg) return refuse("the launch call passes no arguments");
  const PyNode* first_arg = argument(*site.call, 0);
  if (!first_arg) first_arg = site.call->child("keywords", 0);
  // One flag per line, aligned with the first parameter / argument.
  const std::string param_align(static_cast<size_t>(std::max(first_param->col - 1, 0)), ' ');
  const std::string argument_align(static_cast<size_t>(std::max(first_arg->col - 1, 0)), ' ');
  std::string declarations, prologue, keywords;
  for (const auto& [name, d] : chosen) {
    std::string flag = fmt::format("{}_MULTIPLE_OF_{}", upper(name), d);
    declarations += fmt::format(",\n{}{}: {}.constexpr", param_align, flag, tl);
    prologue += fmt::format("{}if {}:  # the JIT marks only multiples of 16\n{}{} = {} // {} * {}\n", indent, flag, inner,
                            name, name, d, d);
    const PyNode* arg = launch_util::passed_argument(ctx, *site.call, name);
    if (!arg) return refuse(fmt::format("the launch call does not pass {}", name));
    keywords += fmt::format(",\n{}{}={} % {} == 0", argument_align, flag, recipe_util::parenthesized(ctx, *arg), d);
  }
  return std::vector<TextEdit>{TextEdit::insert_after(*last_arg, keywords),
                               TextEdit::insert_after(*last_param, declarations),
                               TextEdit::insert_lines(first->line, prologue)};
}

}  // namespace

std::unique_ptr<Recipe> make_divisibility_by_construction_recipe() {
  return std::make_unique<DivisibilityByConstructionRecipe>();
}

}  // namespace tdx
