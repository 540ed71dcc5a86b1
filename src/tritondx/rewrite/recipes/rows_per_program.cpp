// rows-per-program: a kernel whose every program handles one short row (`pid = tl.program_id(0)`
// picks the row, a 1-D tl.arange spans it) takes TILE_ROWS consecutive rows per program instead.
#include <fmt/format.h>

#include <algorithm>

#include "tritondx/source/block_index.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/program_tile.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

constexpr long long kTargetElements = 2048;  // per access after the change
constexpr long long kMaxRows = 64;

class RowsPerProgramRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "rows-per-program"; }
  std::string_view description() const override {
    return "For a straight-line kernel that gives every program one short row, `pid = "
           "tl.program_id(axis)` selecting the row and a 1-D tl.arange spanning it (a RoPE head, a "
           "small vector per token): the program id becomes a column of TILE_ROWS consecutive ids "
           "(`tl.program_id(axis) * TILE_ROWS + tl.arange(0, TILE_ROWS)[:, None]`), so every "
           "expression that derives from it (row offsets, `pid % H`, `pid // H`) broadcasts and each "
           "access moves a [TILE_ROWS, BLOCK] tile: 2048 elements, enough for every thread of the "
           "program to own distinct elements and issue 16-byte vectors, with TILE_ROWS times fewer "
           "programs. Loads and stores are masked by `pid < bound`, where bound is the parameter that "
           "receives the grid's extent along the axis, or a new parameter n_grid_rows passed that "
           "extent; that grid dimension becomes triton.cdiv(extent, TILE_ROWS). Refuses loops, "
           "branches, reductions, transposes and reshapes to a shape not written as a tuple (their shapes "
           "would change meaning; a written reshape of a row gets TILE_ROWS in front), a program id used "
           "elsewhere, a 2-D access, a grid of fewer than 2 x TILE_ROWS programs, and positional masks. "
           "Proposed by l0-short-row-per-program, and by l2-replicated-loads for a 1-D load smaller than "
           "the program's threads.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> RowsPerProgramRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  if (auto refusal = program_tile::refuse_non_elementwise(view, line)) return std::unexpected(*refusal);

  auto loads = recipe_util::kernel_calls_on_line(ctx, {"tl.load"}, line);
  if (loads.empty()) return refuse(fmt::format("no tl.load on line {}", line));
  const PyNode* pointer = KernelView::pointer_arg(*loads.front());
  if (!pointer) return refuse("the load has no pointer argument");
  auto shape = view.shape(*pointer);
  if (!shape || shape->size() != 1) return refuse("the load is not a 1-D tile (one row per program)");
  // Measured on the H200: 32 rows of an interleaved (stride-2) rotary row ran 3x slower.
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* p = KernelView::pointer_arg(*op);
    auto elements = view.elements(*op);
    if (p && elements && *elements > 1 && !l0::contiguous_along_arange(view, *p))
      return refuse(fmt::format("line {}: the row is not contiguous along its tl.arange (a strided row stays strided "
                                "in a taller tile)",
                                op->line));
  }

  // The one scalar program id the row's address derives from.
  std::string row;
  const PyNode* row_value = nullptr;
  std::string failure;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type != "Assign" || !failure.empty()) return;
    const PyNode* value = n.child("value");
    if (!value || value->type != "Call" || normalize_triton_name(call_name(*value)) != "tl.program_id") return;
    if (!view.flows_from(*pointer, [&](const PyNode& x) { return &x == value; })) return;
    std::string name = recipe_util::assigned_name(n);
    if (name.empty() || view.definitions(name).size() != 1) {
      failure = fmt::format("line {}: the program id is not assigned once to a plain name", n.line);
      return;
    }
    if (!row.empty()) failure = "the row's address derives from two program ids";
    row = name;
    row_value = value;
  });
  if (!failure.empty()) return refuse(failure);
  if (row.empty()) return refuse("the load's address does not derive from a `x = tl.program_id(axis)`");
  const int axis = recipe_util::program_id_axis(*row_value);
  if (axis < 0) return refuse("the program id's axis is not a constant");

  const long long block = shape->front();
  const long long tile = std::clamp(l0::next_pow2((kTargetElements + block - 1) / block), 2LL, kMaxRows);
  if (block * 2 > kTargetElements) return refuse(fmt::format("a row of {} elements is long enough already", block));
  const long long programs = view.launch().programs();
  if (programs > 0 && programs < 2 * tile)
    return refuse(fmt::format("the captured grid has {} programs; fewer than two programs of {} rows", programs, tile));
  return program_tile::edits(ctx, {row, row_value, axis, tile, true}, line);
}

}  // namespace

std::unique_ptr<Recipe> make_rows_per_program_recipe() { return std::make_unique<RowsPerProgramRecipe>(); }

}  // namespace tdx
