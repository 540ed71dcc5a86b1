// constexpr-divisor: make the kernel parameters indices are divided by (`offs % D`,
// `offs // (D * S)`) tl.constexpr, so each division is by a compile-time power of two.
#include <fmt/format.h>

#include <set>

#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class ConstexprDivisorRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "constexpr-divisor"; }
  std::string_view description() const override {
    return "Annotates the kernel parameters that the kernel divides by (`offs // D`, `offs % D`, "
           "`offs // (D * S)`) as tl.constexpr, for l2-int-div-mod-index on one of those divisions. A "
           "division by a run-time value (div.s32/rem.s32: a reciprocal estimate and correction steps per "
           "element) becomes a shift or a mask. AxisInfo already keeps `offs % D` contiguous in runs of 16 "
           "when the JIT specialized D as a multiple of 16, so the access pattern changes only for a smaller "
           "power of two. Only parameters whose captured value is a power of two are annotated; each new "
           "value compiles another specialization of the kernel, which suits shape parameters that take few "
           "values (a head dimension, a row length). The launch call is unchanged: Triton accepts a "
           "constexpr passed positionally.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

bool power_of_two(long long v) { return v > 1 && (v & (v - 1)) == 0; }

// The names a divisor expression multiplies together (`D`, `D * S`); empty when it is anything else.
bool product_names(const PyNode& e, std::vector<std::string>& out) {
  if (e.type == "Name") {
    out.push_back(e.str_field("id"));
    return true;
  }
  if (e.type == "BinOp" && e.str_field("op") == "Mult" && e.child("left") && e.child("right"))
    return product_names(*e.child("left"), out) && product_names(*e.child("right"), out);
  return false;
}

Expected<std::vector<TextEdit>> ConstexprDivisorRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  int line = in.finding.loc.line;
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  const KernelInfo* info = ctx.task->kernel(ctx.kernel_name());
  if (!info) return fail(Stage::Rewrite, "the kernel's parameters are unknown", line);

  // The finding's line and every other division in the kernel: one candidate for all the
  // kernel's findings (a flat index split into four coordinates is four findings).
  std::vector<std::string> divisors;
  bool on_line = false;
  PyModule::walk(*ctx.function, [&](const PyNode& n) {
    if (n.type != "BinOp") return;
    std::string op = n.str_field("op");
    std::vector<std::string> names;
    if ((op == "FloorDiv" || op == "Mod") && n.child("right") && product_names(*n.child("right"), names)) {
      on_line |= n.line == line;
      divisors.insert(divisors.end(), names.begin(), names.end());
    }
  });
  if (!on_line)
    return fail(Stage::Rewrite, "no `//` or `%` by a name or a product of names on the finding's line", line);

  std::set<std::string> written = PyModule::names_written(*ctx.function);
  std::vector<TextEdit> edits;
  std::set<std::string> done;
  std::string reasons;
  for (const auto& name : divisors) {
    if (!done.insert(name).second) continue;
    const KernelParam* param = nullptr;
    for (const auto& p : info->params)
      if (p.name == name) param = &p;
    auto refuse = [&](const std::string& why) { reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", name, why); };
    if (!param) {
      refuse("not a kernel parameter");
      continue;
    }
    if (param->is_constexpr) {
      refuse("already a tl.constexpr");
      continue;
    }
    if (param->do_not_specialize) {
      refuse("marked do_not_specialize");
      continue;
    }
    if (written.count(name)) {
      refuse("reassigned in the kernel");
      continue;
    }
    auto value = ctx.launch->int_arg(name);
    if (!value || !power_of_two(*value)) {
      refuse(value ? fmt::format("the captured value {} is not a power of two", *value)
                   : std::string("no captured integer value"));
      continue;
    }
    const PyNode* arg = nullptr;
    if (const PyNode* args = ctx.function->child("args"))
      for (const PyNode* a : args->children_in("args"))
        if (a->str_field("arg") == name) arg = a;
    if (!arg) {
      refuse("not a positional parameter of the def");
      continue;
    }
    std::string annotation = launch_util::tl_prefix(ctx) + ".constexpr";
    if (const PyNode* given = arg->child("annotation")) edits.push_back(TextEdit::replace(*given, annotation));
    else edits.push_back(TextEdit::insert_after(*arg, ": " + annotation));
  }
  if (edits.empty()) return fail(Stage::Rewrite, "no divisor can become a tl.constexpr: " + reasons, line);
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_constexpr_divisor_recipe() { return std::make_unique<ConstexprDivisorRecipe>(); }

}  // namespace tdx
