// group-program-order: row-major pid -> (pid_m, pid_n) becomes Triton's grouped ordering.
#include <fmt/format.h>

#include "tritondx/ladder/l0_triage/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

class GroupProgramOrderRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "group-program-order"; }
  std::string_view description() const override {
    return "Replaces the row-major tile mapping `pid_m = pid // num_pid_n; pid_n = pid % num_pid_n` of a "
           "1D-grid tiled kernel by the grouped ordering of Triton's matmul tutorial: programs walk "
           "GROUP_SIZE_M rows of tiles column by column, so the programs resident at once share both "
           "their A and B panels in L2. GROUP_SIZE_M is defined at module level as a tl.constexpr (8 by "
           "default, fewer when the grid has fewer rows of tiles); num_pid_m is tl.cdiv(extent, BLOCK) "
           "from the mask bound on the row offsets (or tl.num_programs(0) // num_pid_n). The captured grid "
           "must launch exactly num_pid_m x num_pid_n programs, since the grouped mapping is a bijection "
           "only on that range. Proposed by l0-ungrouped-tile-order.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> GroupProgramOrderRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  const auto& p = in.proposal.params;
  if (p.value("grid", "1d") != "1d")
    return refuse("the tiles come from a 2D grid; grouping would also change the launch grid to 1D, which this "
                  "recipe does not do");
  std::string pid = p.value("pid", ""), slow = p.value("slow", ""), fast = p.value("fast", "");
  std::string num_fast = p.value("num_fast", ""), block = p.value("slow_block", ""), extent = p.value("slow_extent", "");
  long long group = p.value("group", 8LL);
  if (pid.empty() || slow.empty() || fast.empty() || num_fast.empty()) return refuse("the proposal names no tile mapping");
  KernelView view(ctx);

  // The two adjacent statements of the mapping.
  auto body = ctx.function->children_in("body");
  const PyNode* first = nullptr;
  const PyNode* second = nullptr;
  auto target = [](const PyNode* s) -> std::string {
    auto t = s->children_in("targets");
    return s->type == "Assign" && t.size() == 1 && t[0]->type == "Name" ? t[0]->str_field("id") : std::string();
  };
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    std::string a = target(body[i]), b = target(body[i + 1]);
    if ((a == slow && b == fast) || (a == fast && b == slow)) first = body[i], second = body[i + 1];
  }
  if (!first) return refuse(fmt::format("{} and {} are not assigned in adjacent statements", slow, fast));
  for (const PyNode* s : {first, second}) {
    const PyNode* v = s->child("value");
    std::string want = target(s) == slow ? fmt::format("{} // {}", pid, num_fast) : fmt::format("{} % {}", pid, num_fast);
    if (recipe_util::text(ctx, *v) != want)
      return refuse(fmt::format("line {}: expected `{} = {}`", s->line, target(s), want));
  }
  for (const auto& name : {slow, fast})
    if (view.definitions(name).size() != 1) return refuse(fmt::format("{} is assigned more than once", name));

  // The grouped mapping covers exactly num_slow x num_fast programs.
  long long programs = ctx.launch->programs();
  auto nf = view.value(*second->child("value")->child("right"));
  if (!nf || *nf <= 0 || programs % *nf != 0)
    return refuse(fmt::format("the grid of {} programs is not a whole number of rows of {} tiles", programs,
                              nf ? std::to_string(*nf) : num_fast));
  long long num_slow = programs / *nf;
  std::string num_slow_expr = fmt::format("tl.num_programs(0) // {}", num_fast);
  if (!extent.empty() && !block.empty()) {
    auto e = ctx.launch->int_arg(extent);
    auto b = ctx.launch->int_arg(block);
    if (e && b && *b > 0 && (*e + *b - 1) / *b == num_slow) num_slow_expr = fmt::format("tl.cdiv({}, {})", extent, block);
  }
  group = std::max(1LL, std::min(group, num_slow));

  // Fresh names only (num_pid_m may already be there with the same meaning).
  std::vector<std::string> fresh = {"num_pid_in_group", "group_id", "first_pid_m", "group_size_m"};
  std::string num_slow_name = "num_pid_m";
  bool define_num_slow = true;
  if (!view.definitions(num_slow_name).empty() || !view.uses(num_slow_name).empty()) {
    const auto& defs = view.definitions(num_slow_name);
    if (defs.size() == 1 && defs[0].value && defs[0].line < first->line &&
        (recipe_util::text(ctx, *defs[0].value) == num_slow_expr ||
         view.value(*defs[0].value) == std::optional<long long>(num_slow)))
      define_num_slow = false;
    else
      return refuse("the kernel already uses the name num_pid_m for something else");
  }
  for (const auto& n : fresh)
    if (!view.definitions(n).empty() || !view.uses(n).empty() || view.is_param(n))
      return refuse(fmt::format("the kernel already uses the name {}", n));
  auto group_def = recipe_util::define_module_constexpr(ctx, "GROUP_SIZE_M", std::to_string(group));
  if (!group_def || view.is_param("GROUP_SIZE_M")) return refuse("the module already binds GROUP_SIZE_M");

  std::string ind = indentation_of(ctx.task->source, first->line);
  std::string text;
  if (define_num_slow) text += fmt::format("{}{} = {}\n", ind, num_slow_name, num_slow_expr);
  text += fmt::format("{}num_pid_in_group = GROUP_SIZE_M * {}\n", ind, num_fast);
  text += fmt::format("{}group_id = {} // num_pid_in_group\n", ind, pid);
  text += fmt::format("{}first_pid_m = group_id * GROUP_SIZE_M\n", ind);
  text += fmt::format("{}group_size_m = min({} - first_pid_m, GROUP_SIZE_M)\n", ind, num_slow_name);
  text += fmt::format("{}{} = first_pid_m + (({} % num_pid_in_group) % group_size_m)\n", ind, slow, pid);
  text += fmt::format("{}{} = ({} % num_pid_in_group) // group_size_m\n", ind, fast, pid);
  return std::vector<TextEdit>{*group_def, stmt_util::replace_lines(first->line, second->end_line, text)};
}

}  // namespace

std::unique_ptr<Recipe> make_group_program_order_recipe() { return std::make_unique<GroupProgramOrderRecipe>(); }

}  // namespace tdx
