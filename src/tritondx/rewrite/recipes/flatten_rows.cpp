// flatten-contiguous-rows: a 2-D elementwise kernel over contiguous rows whose length is not a
// multiple of 16 runs over the flat rows x columns elements instead, under a flag the launch
// computes from the strides.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tritondx/source/block_index.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/program_tile.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

constexpr const char* kFlag = "FLAT_ROWS";
constexpr const char* kLaunchFlag = "flat_rows";

class FlattenRowsRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "flatten-contiguous-rows"; }
  std::string_view description() const override {
    return "For a 2-D elementwise kernel with one program per (row, column block), `row = "
           "tl.program_id(0)`, `cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)`, masks `cols < "
           "n_cols` and addresses `ptr + row * stride_row + cols * stride_col`: when the row stride is "
           "not a multiple of 16 elements, no row after the first starts 16-byte aligned and every "
           "access stays scalar (l3-vectorization-lost). If the rows are contiguous (each row stride "
           "equals n_cols, each column stride is 1), the same kernel can run over the flat rows x "
           "columns elements, which are aligned and (for a multiple-of-16 total) specialized by the JIT. "
           "The kernel gets a constexpr FLAT_ROWS: under it the row index is 0 and the column block is "
           "the program id along the grid's only axis. The launch computes `flat_rows` from the strides "
           "it passes (and a total below 2**31), launches cdiv(rows * n_cols, BLOCK) programs and passes "
           "rows * n_cols as the bound when it holds, and the original 2-D grid otherwise. Refuses "
           "kernels with loops, branches or reductions, a row index used outside the address terms, a "
           "bound used outside the masks, addresses that are not `ptr + row * stride + cols [* stride]` "
           "written in the access, and launches whose strides are not contiguous for the captured "
           "shapes. Proposed by l3-vectorization-lost when alignment is lost at a row stride.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// `name * factor` or `factor * name`: the factor node, else nullptr.
const PyNode* factor_of(const PyNode& e, const std::string& name) {
  if (e.type != "BinOp" || e.str_field("op") != "Mult") return nullptr;
  const PyNode* l = e.child("left");
  const PyNode* r = e.child("right");
  if (recipe_util::is_name(l, name)) return r;
  if (recipe_util::is_name(r, name)) return l;
  return nullptr;
}

struct Access {
  std::string row_stride;  // parameter multiplying the row index
  std::string col_stride;  // parameter multiplying the columns ("" when the columns are added as is)
};

Expected<std::vector<TextEdit>> FlattenRowsRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  const int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  if (auto refusal = program_tile::refuse_non_elementwise(view, line)) return std::unexpected(*refusal);

  // The two program ids, each assigned to a name once.
  std::map<int, std::pair<std::string, const PyNode*>> pids;
  for (const PyNode* call : view.calls({"tl.program_id", "tl.num_programs"})) {
    int axis = recipe_util::program_id_axis(*call);
    if (normalize_triton_name(call_name(*call)) == "tl.num_programs" || axis < 0 || pids.count(axis))
      return refuse("the kernel reads the grid other than through one tl.program_id per axis");
    pids[axis] = {"", call};
  }
  if (pids.size() != 2 || !pids.count(0) || !pids.count(1)) return refuse("the kernel does not use a 2-D grid");
  for (auto& [axis, pid] : pids) {
    for (const PyNode* stmt : view.function().children_in("body"))
      if (stmt->type == "Assign" && stmt->child("value") == pid.second) pid.first = recipe_util::assigned_name(*stmt);
    if (pid.first.empty() || view.definitions(pid.first).size() != 1)
      return refuse(fmt::format("tl.program_id({}) is not assigned once to a name", axis));
  }

  // The column block: cols = cb * BLOCK + tl.arange(0, BLOCK), cb being one of the program ids.
  int col_axis = -1;
  std::string cols, block;
  for (const auto& [axis, pid] : pids) {
    auto uses = view.uses(pid.first);
    if (uses.size() != 1) continue;
    for (const PyNode* stmt : view.function().children_in("body")) {
      std::string name = recipe_util::assigned_name(*stmt);
      const PyNode* value = stmt->child("value");
      if (name.empty() || !value || view.definitions(name).size() != 1) continue;
      auto terms = recipe_util::sum_terms(*value);
      if (terms.size() != 2) continue;
      for (int i = 0; i < 2; ++i) {
        const PyNode* scaled = factor_of(*terms[static_cast<size_t>(i)], pid.first);
        const PyNode* range = terms[static_cast<size_t>(1 - i)];
        if (!scaled || scaled->type != "Name" || range->type != "Call" ||
            normalize_triton_name(call_name(*range)) != "tl.arange" || !argument(*range, 1) ||
            !recipe_util::is_name(argument(*range, 1), scaled->str_field("id")) ||
            int_constant(*argument(*range, 0)).value_or(-1) != 0)
          continue;
        col_axis = axis;
        cols = name;
        block = scaled->str_field("id");
      }
    }
  }
  if (col_axis < 0) return refuse("no `cols = tl.program_id(axis) * BLOCK + tl.arange(0, BLOCK)` in the kernel");
  const int row_axis = 1 - col_axis;
  const std::string row = pids[row_axis].first;

  // Every access: ptr + row * S + cols [* T], masked by cols < bound.
  std::string bound;
  std::vector<Access> accesses;
  int row_terms = 0;
  auto memops = view.calls({"tl.load", "tl.store"});
  if (memops.empty()) return refuse("the kernel has no tl.load or tl.store");
  for (const PyNode* op : memops) {
    const PyNode* ptr = KernelView::pointer_arg(*op);
    const PyNode* mask = KernelView::mask_arg(*op);
    if (!ptr || !mask) return refuse(fmt::format("line {}: an access without a pointer and a mask", op->line));
    auto terms = recipe_util::sum_terms(*ptr);
    Access a;
    bool base = false, has_cols = false;
    for (const PyNode* t : terms) {
      if (t->type == "Name" && view.is_pointer_param(t->str_field("id")) && !base) {
        base = true;
      } else if (const PyNode* s = factor_of(*t, row); s && s->type == "Name" && a.row_stride.empty()) {
        a.row_stride = s->str_field("id");
        ++row_terms;
      } else if (recipe_util::is_name(t, cols) && !has_cols) {
        has_cols = true;
      } else if (const PyNode* c = factor_of(*t, cols); c && c->type == "Name" && !has_cols) {
        has_cols = true;
        a.col_stride = c->str_field("id");
      } else {
        return refuse(fmt::format("line {}: the address is not `ptr + {} * stride + {} [* stride]`", op->line, row,
                                  cols));
      }
    }
    if (!base || a.row_stride.empty() || !has_cols)
      return refuse(fmt::format("line {}: the address is not `ptr + {} * stride + {} [* stride]`", op->line, row, cols));
    // The mask: `cols < bound`, written in the access or through a local name.
    auto conjuncts = l0::mask_conjuncts(view, *mask);
    auto m = conjuncts.size() == 1 ? l0::mask_bound(view, *conjuncts[0]) : std::nullopt;
    if (!m || !m->upper || m->inclusive || !recipe_util::is_name(m->index, cols) || m->limit->type != "Name")
      return refuse(fmt::format("line {}: the mask is not `{} < n`", op->line, cols));
    std::string b = m->limit->str_field("id");
    if (!bound.empty() && b != bound) return refuse("the accesses are masked by different bounds");
    bound = b;
    accesses.push_back(a);
  }
  if (!view.is_param(bound)) return refuse(fmt::format("the bound {} is not a kernel parameter", bound));
  if (static_cast<int>(view.uses(row).size()) != row_terms)
    return refuse(fmt::format("the row index {} is used outside the address terms: a flat launch would give "
                              "every element row 0",
                              row));
  // The columns only index and mask, the bound only masks: flat, both mean the same.
  size_t compares = 0;
  PyModule::walk(view.function(), [&](const PyNode& node) {
    auto b = l0::mask_bound(view, node);
    if (b && b->upper && !b->inclusive && recipe_util::is_name(b->index, cols) && recipe_util::is_name(b->limit, bound))
      ++compares;
  });
  size_t bound_strides = 0;  // `row * n_cols` addresses: the bound is also the row stride
  for (const auto& a : accesses) bound_strides += a.row_stride == bound;
  if (view.uses(bound).size() != compares + bound_strides)
    return refuse(fmt::format("the bound {} is used outside the masks `{} < {}` and the row strides", bound, cols,
                              bound));
  if (view.uses(cols).size() != accesses.size() + compares)
    return refuse(fmt::format("the columns {} are used outside the addresses and the masks", cols));

  // The captured launch: contiguous rows, a grid of (rows, cdiv(n, BLOCK)).
  auto value_of = [&](const std::string& name) { return ctx.launch->int_arg(name); };
  auto n = value_of(bound);
  auto block_value = value_of(block);
  if (!n || !block_value || *block_value <= 0) return refuse("the launch values of the bound and the block are unknown");
  for (const auto& a : accesses) {
    if (a.row_stride != bound && value_of(a.row_stride) != n)
      return refuse(fmt::format("{} = {} is not the row length {}: the rows are not contiguous", a.row_stride,
                                value_of(a.row_stride).value_or(-1), *n));
    if (!a.col_stride.empty() && value_of(a.col_stride) != 1)
      return refuse(fmt::format("{} is not 1: the columns are not contiguous", a.col_stride));
  }
  if (*n % 16 == 0) return refuse(fmt::format("the row length {} is a multiple of 16: the rows are aligned", *n));
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* grid = launch_util::grid_expression(site);
  auto dims = grid && grid->type == "Tuple" ? grid->children_in("elts") : std::vector<const PyNode*>{};
  if (dims.size() != 2 || ctx.launch->grid.size() < 2) return refuse("the grid is not a 2-tuple the recipe can read");
  const long long rows_value = ctx.launch->grid[static_cast<size_t>(row_axis)];
  if (ctx.launch->grid[static_cast<size_t>(col_axis)] != (*n + *block_value - 1) / *block_value)
    return refuse("the grid's column dimension is not cdiv(n, BLOCK) for the captured launch");
  if (rows_value * *n >= (1LL << 31)) return refuse("rows x columns does not fit in int32");
  if (view.binds(kFlag) || launch_util::passed_argument(ctx, *site.call, kFlag))
    return refuse(fmt::format("the kernel already has a {}", kFlag));
  bool launch_binds_flag = false;
  PyModule::walk(*site.enclosing, [&](const PyNode& node) { launch_binds_flag |= recipe_util::is_name(&node, kLaunchFlag); });
  if (launch_binds_flag) return refuse(fmt::format("the launch function already uses the name {}", kLaunchFlag));

  // Launch texts.
  auto passed = [&](const std::string& param) -> Expected<std::string> {
    const PyNode* arg = launch_util::passed_argument(ctx, *site.call, param);
    if (!arg) return fail(Stage::Rewrite, fmt::format("the launch call does not pass {}", param), site.call->line);
    return recipe_util::parenthesized(ctx, *arg);
  };
  const PyNode* bound_arg = launch_util::passed_argument(ctx, *site.call, bound);
  if (!bound_arg) return refuse(fmt::format("the launch call does not pass {}", bound));
  const std::string n_text = recipe_util::parenthesized(ctx, *bound_arg);
  const std::string rows_text = recipe_util::parenthesized(ctx, *dims[static_cast<size_t>(row_axis)]);
  const std::string block_text = TDX_TRY(passed(block));
  std::vector<std::string> conditions;
  for (const auto& a : accesses) {
    if (a.row_stride != bound) {
      std::string c = fmt::format("{} == {}", TDX_TRY(passed(a.row_stride)), n_text);
      if (std::find(conditions.begin(), conditions.end(), c) == conditions.end()) conditions.push_back(c);
    }
    if (!a.col_stride.empty()) {
      std::string c = fmt::format("{} == 1", TDX_TRY(passed(a.col_stride)));
      if (std::find(conditions.begin(), conditions.end(), c) == conditions.end()) conditions.push_back(c);
    }
  }
  conditions.push_back(fmt::format("{} * {} < 2**31", rows_text, n_text));
  std::string joined;
  for (const auto& c : conditions) joined += (joined.empty() ? "" : " and ") + c;

  std::vector<TextEdit> edits;
  const std::string tl = launch_util::tl_prefix(ctx);
  const PyNode* row_call = pids[row_axis].second;
  const PyNode* col_call = pids[col_axis].second;
  edits.push_back(TextEdit::replace(*row_call, fmt::format("0 if {} else {}", kFlag, recipe_util::text(ctx, *row_call))));
  edits.push_back(TextEdit::replace(
      *col_call, fmt::format("{}.program_id(0) if {} else {}", tl, kFlag, recipe_util::text(ctx, *col_call))));
  edits.push_back(TDX_TRY(launch_util::append_constexpr_param(ctx, kFlag, line)));
  const std::string indent = indentation_of(ctx.task->source, site.call->line);
  edits.push_back(TextEdit::insert_lines(site.call->line, fmt::format("{}{} = {}\n", indent, kLaunchFlag, joined)));
  edits.push_back(TextEdit::replace(*site.grid, fmt::format("(triton.cdiv({} * {}, {}),) if {} else {}", rows_text,
                                                            n_text, block_text, kLaunchFlag,
                                                            recipe_util::text(ctx, *site.grid))));
  edits.push_back(TextEdit::replace(*bound_arg, fmt::format("{} * {} if {} else {}", rows_text, n_text, kLaunchFlag,
                                                            recipe_util::text(ctx, *bound_arg))));
  edits.push_back(launch_util::set_keyword(*site.call, kFlag, kLaunchFlag));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_flatten_contiguous_rows_recipe() { return std::make_unique<FlattenRowsRecipe>(); }

}  // namespace tdx
