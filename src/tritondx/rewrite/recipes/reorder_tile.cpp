// reorder-tile: a 1-D tile that runs along a strided dimension, while a scalar program id walks
// the contiguous one, gets a second tile dimension along the contiguous one.
#include <fmt/format.h>

#include "tritondx/core/check.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/program_tile.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;
using recipe_util::program_id_axis;

constexpr long long kMaxTileElements = 16384;  // elements per program after the change (registers)
constexpr int kSectorBytes = 32;

class ReorderTileRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "reorder-tile"; }
  std::string_view description() const override {
    return "For a global access whose tile does not span the tensor's contiguous dimension (the "
           "l2-uncoalesced-access case `contiguous_dim = -1`) because a scalar program id indexes that "
           "dimension, as in a first-draft transpose `row = tl.program_id(0)`, `out + cols * stride_r + "
           "row * 1`: the program id becomes a column of TILE_ROWS indices (`tl.program_id(0) * TILE_ROWS "
           "+ tl.arange(0, TILE_ROWS)[:, None]`), so every expression that uses it broadcasts to a "
           "[TILE_ROWS, BLOCK] tile. Triton's Coalesce pass then gives the load and the store each the "
           "layout of its own contiguous dimension and converts between them through shared memory, so "
           "both are coalesced. TILE_ROWS spans one 32-byte sector of the element type (8 fp32, 16 fp16); "
           "each load and store is also masked by `row < BOUND`, where BOUND is the kernel parameter that "
           "receives the grid's size along that axis, and that grid dimension becomes "
           "triton.cdiv(size, TILE_ROWS). Refuses kernels with loops, branches or reductions (their "
           "shapes would change meaning), a program id used anywhere else, a grid dimension that no "
           "parameter receives, positional masks, and tiles over 16384 elements (make the block smaller "
           "first). Proposed by l2-uncoalesced-access.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// Does the address expression add `name` itself, or `name` times a stride that is 1 in this launch?
bool indexes_contiguously(const KernelView& view, const PyNode& expr, const std::string& name) {
  bool found = false;
  PyModule::walk(expr, [&](const PyNode& n) {
    if (n.type != "BinOp") return;
    const std::string op = n.fields.value("op", "");
    const PyNode* l = n.child("left");
    const PyNode* r = n.child("right");
    if (!l || !r) return;
    if (op == "Add" && (recipe_util::is_name(l, name) || recipe_util::is_name(r, name))) found = true;
    if (op == "Mult") {
      const PyNode* other = recipe_util::is_name(l, name) ? r : recipe_util::is_name(r, name) ? l : nullptr;
      if (other && view.value(*other) == 1) found = true;
    }
  });
  return found;
}

Expected<std::vector<TextEdit>> ReorderTileRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  if (in.proposal.params.value("contiguous_dim", 0) != -1)
    return refuse("only a tile that does not span the contiguous dimension at all is handled (contiguous_dim -1)");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);

  if (auto refusal = program_tile::refuse_non_elementwise(view, line)) return std::unexpected(*refusal);

  // The flagged access and the scalar program id that indexes its contiguous dimension.
  auto accesses = recipe_util::kernel_calls_on_line(ctx, {"tl.load", "tl.store"}, line);
  if (accesses.size() != 1) return refuse(fmt::format("expected one tl.load or tl.store on line {}", line));
  const PyNode* pointer = argument(*accesses[0], 0) ? argument(*accesses[0], 0) : keyword(*accesses[0], "pointer");
  if (!pointer) return refuse("the access has no pointer argument");
  auto shape = view.shape(*pointer);
  if (!shape || shape->size() != 1) return refuse("the access is not a 1-D tile");
  std::string row;
  const PyNode* row_value = nullptr;
  for (const auto& name : PyModule::names_read(*pointer)) {
    const auto& defs = view.definitions(name);
    if (defs.size() != 1 || !defs[0].value || defs[0].value->type != "Call" ||
        normalize_triton_name(call_name(*defs[0].value)) != "tl.program_id")
      continue;
    if (!indexes_contiguously(view, *pointer, name)) continue;
    if (!row.empty()) return refuse("two program ids index the contiguous dimension");
    row = name;
    row_value = defs[0].value;
  }
  if (row.empty())
    return refuse("no scalar `x = tl.program_id(axis)` indexes the contiguous dimension (stride 1) of this access");
  const int axis = program_id_axis(*row_value);
  if (axis < 0) return refuse("the program id's axis is not a constant");
  int bytes = l0::element_bytes(view.pointee_type(view.root_pointer(*pointer)));
  if (bytes == 0) return refuse("unknown element type behind the pointer");
  const long long tile = kSectorBytes / bytes;
  if (tile * shape->front() > kMaxTileElements)
    return refuse(fmt::format("a {}x{} tile holds over {} elements; make the block smaller first", tile,
                              shape->front(), kMaxTileElements));
  return program_tile::edits(ctx, {row, row_value, axis, tile, false}, line);
}

}  // namespace

std::unique_ptr<Recipe> make_reorder_tile_recipe() { return std::make_unique<ReorderTileRecipe>(); }

}  // namespace tdx
