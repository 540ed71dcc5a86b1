// group-program-order: row-major pid -> (pid_m, pid_n) becomes Triton's grouped ordering.
#include <fmt/format.h>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/source/program_ids.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

class GroupProgramOrderRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "group-program-order"; }
  std::string_view description() const override {
    return "Replaces the row-major tile mapping `pid_m = pid // num_pid_n; pid_n = pid % num_pid_n` of a "
           "1D-grid tiled kernel (or `pid_m = tl.program_id(0); pid_n = tl.program_id(1)` of a 2D grid, "
           "enumerated in launch order) by the grouped ordering of Triton's matmul tutorial: programs walk "
           "GROUP_SIZE_M rows of tiles column by column, so the programs resident at once share both "
           "their A and B panels in L2. GROUP_SIZE_M is defined at module level as a tl.constexpr (8 by "
           "default, fewer when the grid has fewer rows of tiles); num_pid_m is tl.cdiv(extent, BLOCK) "
           "from the mask bound on the row offsets (or tl.num_programs(0) // num_pid_n). A 1D grid must "
           "launch exactly num_pid_m x num_pid_n programs, since the grouped mapping is a bijection only on "
           "that range; a 2D grid is a bijection onto itself (program ids read through a helper or widened with .to() "
           "keep int64). Proposed by l0-ungrouped-tile-order and l0-grid-order-rereads.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// The program-id read that is the whole value of a statement (axis -1 when it is none).
l0::ProgramIdRead program_read(const KernelView& view, const PyNode& stmt) {
  const PyNode* v = stmt.child("value");
  return v ? l0::program_id_read(view, *v) : l0::ProgramIdRead{};
}

Expected<std::vector<TextEdit>> GroupProgramOrderRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  const auto& p = in.proposal.params;
  bool grid_2d = p.value("grid", "1d") == "2d";
  std::string pid = p.value("pid", ""), slow = p.value("slow", ""), fast = p.value("fast", "");
  std::string num_fast = p.value("num_fast", ""), block = p.value("slow_block", ""), extent = p.value("slow_extent", "");
  long long group = p.value("group", 8LL);
  if (slow.empty() || fast.empty() || (!grid_2d && (pid.empty() || num_fast.empty())))
    return refuse("the proposal names no tile mapping");
  KernelView view(ctx);

  // The two adjacent statements of the mapping.
  auto body = ctx.function->children_in("body");
  const PyNode* first = nullptr;
  const PyNode* second = nullptr;
  auto target = [](const PyNode* s) { return recipe_util::assigned_name(*s); };
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    std::string a = target(body[i]), b = target(body[i + 1]);
    if ((a == slow && b == fast) || (a == fast && b == slow)) first = body[i], second = body[i + 1];
  }
  if (!first) return refuse(fmt::format("{} and {} are not assigned in adjacent statements", slow, fast));
  for (const auto& name : {slow, fast})
    if (view.definitions(name).size() != 1) return refuse(fmt::format("{} is assigned more than once", name));

  // What the grouped mapping is written in: the linear program id, the rows of tiles that are
  // grouped (`rows`, counted by num_pid_m) and the columns walked inside a group (`cols`).
  std::string rows, cols, linear_pid, num_rows_expr, num_cols_expr;
  std::vector<std::string> fresh = {"num_pid_in_group", "group_id", "first_pid_m", "group_size_m"};
  std::string ind = indentation_of(ctx.task->source, first->line);
  std::string text;
  if (grid_2d) {
    // Keep the 2D grid: enumerate its programs in launch order (axis 0 fastest) and group the
    // rows of axis 0; the mapping is a bijection of the grid onto itself, whatever its size.
    const PyNode* axis0 = program_read(view, *first).axis == 0 ? first : second;
    const PyNode* axis1 = axis0 == first ? second : first;
    const auto read0 = program_read(view, *axis0), read1 = program_read(view, *axis1);
    if (read0.axis != 0 || read1.axis != 1)
      return refuse("expected the tile indices to be tl.program_id(0) and tl.program_id(1)");
    // Ids the kernel widened (a helper returning int64, a .to()) stay wide: the enumeration is
    // computed in int64 and the indices it yields are int64 too.
    const bool wide = read0.widened || read1.widened;
    if (ctx.launch->grid.size() < 2 || (ctx.launch->grid.size() > 2 && ctx.launch->grid[2] != 1))
      return refuse("the captured grid is not two-dimensional");
    rows = target(axis0), cols = target(axis1);
    linear_pid = "pid";
    num_rows_expr = "tl.num_programs(0)";
    num_cols_expr = "tl.num_programs(1)";
    group = std::max(1LL, std::min<long long>(8, ctx.launch->grid[0]));
    for (const char* n : {"pid", "num_pid_n"}) fresh.push_back(n);
    text += fmt::format("{}pid = tl.program_id(1){} * tl.num_programs(0) + tl.program_id(0)\n", ind,
                        wide ? ".to(tl.int64)" : "");
    text += fmt::format("{}num_pid_n = tl.num_programs(1)\n", ind);
    num_fast = "num_pid_n";
  } else {
    for (const PyNode* s : {first, second}) {
      const PyNode* v = s->child("value");
      std::string want = target(s) == slow ? fmt::format("{} // {}", pid, num_fast) : fmt::format("{} % {}", pid, num_fast);
      if (recipe_util::text(ctx, *v) != want)
        return refuse(fmt::format("line {}: expected `{} = {}`", s->line, target(s), want));
    }
    // The grouped mapping covers exactly num_slow x num_fast programs.
    long long programs = ctx.launch->programs();
    auto nf = view.value(*(target(second) == fast ? second : first)->child("value")->child("right"));
    if (!nf || *nf <= 0 || programs % *nf != 0)
      return refuse(fmt::format("the grid of {} programs is not a whole number of rows of {} tiles", programs,
                                nf ? std::to_string(*nf) : num_fast));
    long long num_slow = programs / *nf;
    num_rows_expr = fmt::format("tl.num_programs(0) // {}", num_fast);
    if (!extent.empty() && !block.empty()) {
      auto e = ctx.launch->int_arg(extent);
      auto b = ctx.launch->int_arg(block);
      if (e && b && *b > 0 && (*e + *b - 1) / *b == num_slow) num_rows_expr = fmt::format("tl.cdiv({}, {})", extent, block);
    }
    group = std::max(1LL, std::min(group, num_slow));
    rows = slow, cols = fast, linear_pid = pid;
  }

  // Fresh names only (a 1D kernel's num_pid_m may already be there with the same meaning).
  bool define_num_rows = true;
  if (!view.definitions("num_pid_m").empty() || !view.uses("num_pid_m").empty()) {
    const auto& defs = view.definitions("num_pid_m");
    if (!grid_2d && defs.size() == 1 && defs[0].value && defs[0].line < first->line &&
        recipe_util::text(ctx, *defs[0].value) == num_rows_expr)
      define_num_rows = false;
    else
      return refuse("the kernel already uses the name num_pid_m for something else");
  }
  for (const auto& n : fresh)
    if (view.binds(n))
      return refuse(fmt::format("the kernel already uses the name {}", n));
  auto group_def = recipe_util::define_module_constexpr(ctx, "GROUP_SIZE_M", std::to_string(group));
  if (!group_def || view.is_param("GROUP_SIZE_M")) return refuse("the module already binds GROUP_SIZE_M");

  if (define_num_rows) text += fmt::format("{}num_pid_m = {}\n", ind, num_rows_expr);
  text += fmt::format("{}num_pid_in_group = GROUP_SIZE_M * {}\n", ind, num_fast);
  text += fmt::format("{}group_id = {} // num_pid_in_group\n", ind, linear_pid);
  text += fmt::format("{}first_pid_m = group_id * GROUP_SIZE_M\n", ind);
  text += fmt::format("{}group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)\n", ind);
  text += fmt::format("{}{} = first_pid_m + (({} % num_pid_in_group) % group_size_m)\n", ind, rows, linear_pid);
  text += fmt::format("{}{} = ({} % num_pid_in_group) // group_size_m\n", ind, cols, linear_pid);
  return std::vector<TextEdit>{*group_def, stmt_util::replace_lines(first->line, second->end_line, text)};
}

}  // namespace

std::unique_ptr<Recipe> make_group_program_order_recipe() { return std::make_unique<GroupProgramOrderRecipe>(); }

}  // namespace tdx
