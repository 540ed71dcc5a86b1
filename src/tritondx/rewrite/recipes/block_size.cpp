// grow-block, resize-block, grow-tile: give a constexpr block size a new value at the launch
// call and keep the grid consistent with it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "tritondx/core/check.h"
#include "tritondx/source/block_index.h"
#include "tritondx/rewrite/recipes/grid_rewriter.h"
#include "tritondx/rewrite/recipes/launch_block_value.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/wrapped_block.h"
#include "tritondx/core/text.h"

namespace tdx {
namespace {

using l0::KernelView;
using block_grid::BlockChange;
using block_grid::GridRewriter;

enum class BlockKind { Grow, Resize, Tile };

using l0::is_pow2;

// Is `name` the step of a counted loop in the kernel (for s in range(lo, hi, NAME))?
bool steps_a_loop(const KernelView& view, const std::string& name) {
  bool found = false;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type != "For" || !n.child("iter") || n.child("iter")->type != "Call") return;
    const PyNode* step = argument(*n.child("iter"), 2);
    if (step && step->type == "Name" && step->str_field("id") == name) found = true;
  });
  return found;
}

class BlockSizeRecipe final : public Recipe {
 public:
  explicit BlockSizeRecipe(BlockKind kind) : kind_(kind) {}
  std::string_view id() const override;
  std::string_view description() const override;
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;

 private:
  Expected<std::vector<BlockChange>> changes(const RecipeInput& in, const KernelView& view) const;
  static Expected<void> tile_names(const KernelView& view, int line, std::string (&names)[2]);
  BlockKind kind_;
};

std::string_view BlockSizeRecipe::id() const {
  switch (kind_) {
    case BlockKind::Grow: return "grow-block";
    case BlockKind::Resize: return "resize-block";
    case BlockKind::Tile: return "grow-tile";
  }
  return "";
}

std::string_view BlockSizeRecipe::description() const {
  switch (kind_) {
    case BlockKind::Grow:
      return "Raises a 1-D block size: the constexpr the finding's tl.arange is sized by gets the proposed "
             "value at the launch call (the literal argument, the launch-local variable it is assigned "
             "from, or the launch's computation of it scaled by the same factor), and the grid follows: "
             "triton.cdiv(n, OLD) and n // OLD become triton.cdiv(n, NEW) and n // NEW on the grid dimension whose tl.program_id the kernel multiplies by the block, a "
             "literal grid is recomputed, and a grid written with the same variable or meta['BLOCK'] "
             "already follows. Proposed by l0-tiny-block, and by l1-bound-class, l1-hot-line-stall, "
             "l1-occupancy-limiter and l1-shared-bank-conflicts for a kernel with a single block constexpr. "
             "When the kernel's autotuner sets the block, the diagnosed config with the new block is added to its "
             "configs instead (the grid reads the block from the config); when a @triton.heuristics computes it, a "
             "heuristic right above @triton.jit scales the computed block by the same factor. "
             "Refuses when the block is not a constexpr "
             "parameter passed as a literal or a variable, when a grid dimension cannot be traced to the "
             "block, when the old value is used elsewhere in the launch, or when unmasked accesses would "
             "read past the data.";
    case BlockKind::Resize:
      return "Sizes a block from the extent it covers (a smaller block when most lanes are masked): the "
             "block constexpr gets the proposed value at the launch call and the grid follows, exactly as in "
             "grow-block. When no grid dimension counts blocks of it (one block per row, or a loop over the "
             "row), a smaller block is accepted only if it still covers the extent or steps a loop; a block "
             "the launch computes is capped (`min(NEW, ...)`) where a loop or the grid steps by it, unless "
             "the launch checks its input's sizes against it. Proposed by l0-masked-lanes, and by "
             "l2-register-spills for a loop stepping by a block too large for registers.";
    case BlockKind::Tile:
      return "Grows a 2-D tile: the constexprs sizing the rows and the columns (named by the proposal's "
             "\"constexprs\": [rows, columns], or else those of the finding's access: x[:, None] and x[None, :] "
             "of tl.arange blocks) get the proposed tile at the launch call, and the grid dimensions counting "
             "blocks of each follow, as in grow-block. A grid dimension that multiplies block counts "
             "(triton.cdiv(M, 64) * triton.cdiv(N, 64), split in the kernel with pid // num_pid_n) follows "
             "factor by factor: each constexpr edits a factor counting blocks of its old value that is not "
             "edited yet, leaving out a factor whose extent the launch passes to a parameter the kernel divides "
             "by another block (num_pid_n = tl.cdiv(K, BLOCK_N) for triton.cdiv(K, 64)), and preferring the "
             "one the kernel divides by this block, then the one whose extent is named like its dimension (M "
             "for BLOCK_M); inside "
             "a product the new count is never known to be exact, so unmasked accesses refuse. Proposed by "
             "l0-tiny-block for 2-D tiles and by l1-bound-class for a compute-bound kernel limited by a cache "
             "(the output tile's BLOCK_M x BLOCK_N doubled, at most 256 each).";
  }
  return "";
}

// The dimension of a broadcast `x[:, None]` (0) / `x[None, :]` (1), or -1.
int broadcast_dim(const PyNode& subscript) {
  const PyNode* slice = subscript.child("slice");
  if (!slice || slice->type != "Tuple") return -1;
  auto elts = slice->children_in("elts");
  if (elts.size() != 2) return -1;
  // The bridge leaves out None fields: Constant(None) has no "value".
  auto is_none = [](const PyNode* e) {
    return e->type == "Constant" && (!e->fields.is_object() || !e->fields.contains("value") || e->fields["value"].is_null());
  };
  if (elts[0]->type == "Slice" && is_none(elts[1])) return 0;
  if (is_none(elts[0]) && elts[1]->type == "Slice") return 1;
  return -1;
}

Expected<std::vector<BlockChange>> BlockSizeRecipe::changes(const RecipeInput& in, const KernelView& view) const {
  const auto& p = in.proposal.params;
  int line = in.finding.loc.line;
  if (kind_ != BlockKind::Tile) {
    if (!p.contains("block") || !p["block"].is_number_integer() || !p.contains("from") || !p["from"].is_number_integer())
      return fail(Stage::Rewrite, "the proposal names no block size (it asks for a larger tile per thread, not a "
                                  "value this recipe can set)",
                  line);
    std::string name = p.value("constexpr", "");
    return std::vector<BlockChange>{{name, p["from"].get<long long>(), p["block"].get<long long>()}};
  }
  auto pair_of_ints = [&](const char* key) {
    return p.contains(key) && p[key].is_array() && p[key].size() == 2 && p[key][0].is_number_integer() &&
           p[key][1].is_number_integer();
  };
  if (!pair_of_ints("from") || !pair_of_ints("tile")) return fail(Stage::Rewrite, "the proposal names no 2-D tile", line);
  std::string names[2];
  if (p.contains("constexprs")) {
    // Named by the proposal (a finding on the kernel's def line has no access to read them from).
    const auto& c = p["constexprs"];
    if (!c.is_array() || c.size() != 2 || !c[0].is_string() || !c[1].is_string() || c[0].get<std::string>().empty() ||
        c[1].get<std::string>().empty())
      return fail(Stage::Rewrite, "the proposal's \"constexprs\" is not [rows, columns]", line);
    names[0] = c[0].get<std::string>();
    names[1] = c[1].get<std::string>();
  } else {
    TDX_CHECK(tile_names(view, line, names));
  }
  std::vector<BlockChange> out;
  for (int d = 0; d < 2; ++d) {
    long long from = p["from"][d].get<long long>(), to = p["tile"][d].get<long long>();
    if (from != to) out.push_back({names[d], from, to});
  }
  if (names[0] == names[1] && out.size() == 2 && out[0].to != out[1].to)
    return fail(Stage::Rewrite, fmt::format("one constexpr {} sizes both dimensions of the tile", names[0]), line);
  if (names[0] == names[1] && out.size() == 2) out.pop_back();
  if (out.empty()) return fail(Stage::Rewrite, "the proposed tile is the current tile", line);
  return out;
}

// The constexprs sizing the rows and the columns of the access on the finding's line.
Expected<void> BlockSizeRecipe::tile_names(const KernelView& view, int line, std::string (&names)[2]) {
  // The access on the finding's line; the aranges its pointer broadcasts along each dimension.
  const PyNode* memop = nullptr;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"}))
    if (op->line == line && !memop) memop = op;
  const PyNode* ptr = memop ? KernelView::pointer_arg(*memop) : nullptr;
  if (!ptr) return fail(Stage::Rewrite, "no tl.load/tl.store on the finding's line", line);
  bool ambiguous = false;
  view.visit_flow(*ptr, [&](const PyNode& n) {
    if (n.type != "Subscript") return true;
    int dim = broadcast_dim(n);
    if (dim < 0) return true;
    view.visit_flow(*n.child("value"), [&](const PyNode& a) {
      if (a.type != "Call" || normalize_triton_name(call_name(a)) != "tl.arange") return true;
      const PyNode* size = argument(a, 1);
      std::string s = size && size->type == "Name" ? size->str_field("id") : "?";
      if (!names[dim].empty() && names[dim] != s) ambiguous = true;
      names[dim] = s;
      return false;
    });
    return false;
  });
  if (ambiguous || names[0].empty() || names[1].empty() || names[0] == "?" || names[1] == "?")
    return fail(Stage::Rewrite, "cannot tell which constexprs size the rows and the columns of the tile", line);
  return {};
}

// Does the expression (through the launch function's single assignments of the names it reads)
// hold the literal `value` or a node the rewrite edits?
bool derives_from(const PyNode& e, const PyNode& function, long long value, const std::set<const PyNode*>& edited,
                  int depth = 0) {
  bool found = false;
  PyModule::walk(e, [&](const PyNode& n) {
    if (found) return;
    if (edited.count(&n) || (n.type == "Constant" && int_constant(n) == value)) found = true;
    else if (n.type == "Name" && depth < 4)
      if (const PyNode* def = launch_util::single_assignment(function, n.str_field("id")); def && def->child("value"))
        found = derives_from(*def->child("value"), function, value, edited, depth + 1);
  });
  return found;
}

// The constexpr keyword values of the launch function's other kernel launches whose grid does
// not derive from the old value: that kernel's own block, which happens to be the same number
// (a two-stage reduction's final `final_kernel[(1,)](..., BLOCK=1024)`). A launch whose grid
// counts blocks of the old value (a scan's `add_back[(cdiv(n, 1024),)](..., BLOCK=1024)`) tiles
// the same data: its block stays tied.
std::set<const PyNode*> independent_launch_blocks(const KernelContext& ctx, const launch_util::LaunchSite& site,
                                                  long long old_value, const std::set<const PyNode*>& edited) {
  std::set<const PyNode*> out;
  PyModule::walk(*site.enclosing, [&](const PyNode& call) {
    const PyNode* f = call.type == "Call" ? call.child("func") : nullptr;
    if (&call == site.call || !f || f->type != "Subscript" || !f->child("value") || !f->child("slice")) return;
    const KernelInfo* other = ctx.task->kernel(dotted_name(*f->child("value")));
    if (!other) return;
    launch_util::LaunchSite other_site{&call, f->child("slice"), site.enclosing};
    const PyNode* grid = launch_util::grid_expression(other_site);
    if (!grid || derives_from(*grid, *site.enclosing, old_value, edited)) return;
    for (const PyNode* kw : call.children_in("keywords")) {
      bool constexpr_param = false;
      for (const auto& prm : other->params) constexpr_param |= prm.name == kw->str_field("arg") && prm.is_constexpr;
      if (constexpr_param && kw->child("value")) out.insert(kw->child("value"));
    }
  });
  return out;
}

// A constexpr parameter of the kernel that is none of the retuned blocks.
bool is_constexpr_flag(const KernelInfo* info, const std::string& name, const std::vector<BlockChange>& changes) {
  if (!info || name.empty()) return false;
  for (const auto& c : changes)
    if (c.name == name) return false;
  for (const auto& prm : info->params)
    if (prm.name == name) return prm.is_constexpr;
  return false;
}

// The even-shape flags of the launch (constexpr parameters that are none of the retuned blocks)
// and the expression each is computed from: the keyword's value, or the launch-local variable's
// single assignment (`even = M % 64 == 0 and ...; kernel[grid](..., EVEN=even)`).
std::map<std::string, const PyNode*> flag_expressions(const KernelInfo* info, const launch_util::LaunchSite& site,
                                                      const std::vector<BlockChange>& changes) {
  std::map<std::string, const PyNode*> out;
  for (const PyNode* kw : site.call->children_in("keywords")) {
    const PyNode* value = kw->child("value");
    if (!value || !is_constexpr_flag(info, kw->str_field("arg"), changes)) continue;
    if (value->type == "Name")
      if (const PyNode* def = launch_util::single_assignment(*site.enclosing, value->str_field("id")); def && def->child("value"))
        value = def->child("value");
    out[kw->str_field("arg")] = value;
  }
  return out;
}

// The `x % divisor` nodes of an expression whose divisor is the literal `divisor`.
std::vector<const PyNode*> mod_divisors(const PyNode& e, long long divisor) {
  std::vector<const PyNode*> out;
  PyModule::walk(e, [&](const PyNode& n) {
    const PyNode* d = n.type == "BinOp" && n.str_field("op") == "Mod" ? n.child("right") : nullptr;
    if (d && int_constant(*d) == divisor) out.push_back(d);
  });
  return out;
}

// Is `access` in the body of an `if FLAG:` for one of `flags`?
bool guarded_by(const PyNode& access, const std::set<std::string>& flags) {
  for (const PyNode* child = &access; child->parent; child = child->parent) {
    const PyNode* test = child->parent->type == "If" && child->field == "body" ? child->parent->child("test") : nullptr;
    if (test && test->type == "Name" && flags.count(test->str_field("id"))) return true;
  }
  return false;
}

// Is `access` in the body of a full-block guard on this block, `if start + BLOCK <= n:`
// (unmasked-full-blocks)? The guard holds for any value of BLOCK.
bool in_full_block_guard(const PyNode& access, const std::string& block) {
  for (const auto& g : l0::full_block_guards(access, false))
    for (const PyNode* term : {g.sum->child("left"), g.sum->child("right")})
      if (term && term->type == "Name" && term->str_field("id") == block) return true;
  return false;
}

Expected<std::vector<TextEdit>> BlockSizeRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  int line = in.finding.loc.line;
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  KernelView view(ctx);
  auto changes = TDX_TRY(this->changes(in, view));
  if (wrapped_block::decided(ctx, changes)) return wrapped_block::edits(ctx, view, changes, line);
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const KernelInfo* info = ctx.task->kernel(ctx.kernel_name());

  // The grid's elements (a tuple, a name bound to one, or a lambda meta: (...)).
  const PyNode* grid = launch_util::grid_expression(site);
  std::string meta;
  if (grid && grid->type == "Lambda") {
    if (const PyNode* args = grid->child("args"))
      if (const PyNode* a = args->child("args", 0)) meta = a->str_field("arg");
    grid = grid->child("body");
  }
  std::vector<const PyNode*> dims;
  if (grid && (grid->type == "Tuple" || grid->type == "List")) dims = grid->children_in("elts");
  if (dims.empty()) return fail(Stage::Rewrite, "the grid is not a tuple the recipe can read", site.call->line);

  std::vector<TextEdit> edits;
  std::set<const PyNode*> edited;
  std::set<const PyNode*> followed_dims;
  const auto flags = flag_expressions(info, site, changes);
  std::set<const PyNode*> other_factors;
  for (const auto& c : changes) {
    std::string name = c.name;
    if (name.empty()) return fail(Stage::Rewrite, "the proposal does not name the block's constexpr", line);
    bool is_constexpr_param = false;
    if (info)
      for (const auto& prm : info->params) is_constexpr_param |= prm.name == name && prm.is_constexpr;
    if (!is_constexpr_param)
      return fail(Stage::Rewrite, fmt::format("the block `{}` is not a tl.constexpr parameter of the kernel", name), line);
    if (ctx.launch->int_arg(name) != c.from)
      return fail(Stage::Rewrite, fmt::format("the captured {} is not {}", name, c.from), line);
    if (!is_pow2(c.to) || c.to > 65536) return fail(Stage::Rewrite, fmt::format("{} is not a valid block size", c.to), line);
    if (c.to == c.from) return fail(Stage::Rewrite, fmt::format("{} is already {}", name, c.to), line);

    // The value at the launch (launch_block_value.h): a literal, or the launch's computation capped
    // or scaled.
    auto value = TDX_TRY(block_grid::edit_launch_block_value(ctx, site, c, edits, edited));
    if (value.already_edited) continue;
    const std::string& launch_var = value.launch_var;
    const PyNode* computed = value.computed;

    // Are the accesses that index with this block (an arange sized by it) all masked? An
    // unmasked one under `if EVEN:` counts as masked when the flag tests divisibility by the old
    // block (a larger block's divisor replaces it below, and a smaller block divides it), and so
    // does one under a full-block guard `if start + BLOCK <= n:`.
    std::set<std::string> divisible_flags;
    for (const auto& [flag, expression] : flags)
      if (!mod_divisors(*expression, c.from).empty()) divisible_flags.insert(flag);
    bool all_masked = true;
    for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
      const PyNode* ptr = KernelView::pointer_arg(*op);
      if (!ptr || KernelView::mask_arg(*op) || guarded_by(*op, divisible_flags) || in_full_block_guard(*op, name))
        continue;
      if (view.flows_from(*ptr, [&](const PyNode& n) {
            if (n.type != "Call" || normalize_triton_name(call_name(n)) != "tl.arange") return false;
            const PyNode* size = argument(n, 1);
            return size && size->type == "Name" && size->str_field("id") == name;
          }))
        all_masked = false;
    }

    // The grid: every dimension counting blocks of this constexpr follows it.
    std::set<int> axes = launch_util::scaled_axes(view, name);
    if (axes.count(-1)) return fail(Stage::Rewrite, "tl.program_id with a non-constant axis", line);
    for (int axis : axes) {
      if (axis >= static_cast<int>(dims.size()) || axis >= static_cast<int>(ctx.launch->grid.size()))
        return fail(Stage::Rewrite, fmt::format("the grid has no dimension {}", axis), site.call->line);
      GridRewriter g{ctx, *site.enclosing, c, ctx.launch->grid[static_cast<size_t>(axis)], launch_var, meta,
                     edits, edited, line, site.call, &other_factors};
      TDX_TRY(g.rewrite(*dims[static_cast<size_t>(axis)], 0));
      followed_dims.insert(dims[static_cast<size_t>(axis)]);
      if (!g.exact() && !all_masked)
        return fail(Stage::Rewrite,
                    g.in_product
                        ? fmt::format("the grid multiplies block counts, so whether the extent counted in blocks "
                                      "of {} = {} is a whole number of blocks of {} is unknown, and the kernel has "
                                      "unmasked accesses: the last block could read past the data",
                                      c.name, c.from, c.to)
                        : fmt::format("{} blocks of {} are not a whole number of blocks of {} and the kernel has "
                                      "unmasked accesses: the last block would read past the data",
                                      g.programs, c.from, c.to),
                    line);
    }
    if (axes.empty()) {
      // No grid dimension counts these blocks: one block per program, or a loop over them.
      bool loop = steps_a_loop(view, name);
      if (computed && !loop && c.to < c.from)
        return fail(Stage::Rewrite,
                    fmt::format("the launch computes {} as `{}` for a single block, which a smaller block capped "
                                "at {} may no longer cover at other shapes",
                                name, node_text(*computed, ctx.task->lines), c.to),
                    line);
      if (loop && !all_masked && c.to > c.from)
        return fail(Stage::Rewrite, "a loop steps by the block over unmasked accesses: a larger block could read "
                                    "past the data",
                    line);
      long long extent = in.proposal.params.value("extent", 0LL);
      if (!loop && c.to < c.from && extent > c.to)
        return fail(Stage::Rewrite,
                    fmt::format("{} = {} would no longer cover the extent {} of a single block", name, c.to, extent),
                    line);
      if (!loop && c.to < c.from && extent <= 0)
        return fail(Stage::Rewrite, "a smaller single block needs the extent it must still cover", line);
    }
  }

  // An even-shape flag passed to a constexpr (`EVEN_N=n % 1024 == 0`, as even-shape-heuristic
  // writes it, or a launch variable holding that test) tests divisibility by the old block: its
  // divisor follows the block. A larger power-of-two divisor only makes the flag stricter, so it
  // always follows. A smaller one follows only when no other constexpr of the launch has the old
  // value the divisor could belong to; otherwise the old divisor stays, which is still correct
  // (divisible by the old block is divisible by the new).
  std::set<const PyNode*> kept_divisors;
  for (const auto& c : changes) {
    bool shared = false;
    for (const auto& [other, value] : ctx.launch->constexprs.items())
      shared |= other != c.name && value.is_number_integer() && value.get<long long>() == c.from;
    for (const auto& [flag, expression] : flags)
      for (const PyNode* divisor : mod_divisors(*expression, c.from)) {
        if (c.to < c.from && shared) kept_divisors.insert(divisor);
        else if (edited.insert(divisor).second) edits.push_back(TextEdit::replace(*divisor, std::to_string(c.to)));
      }
  }

  // Any other use of an old value in the launch function may be tied to the block (a buffer of
  // cdiv(n, OLD) partial results): refuse rather than leave it inconsistent. Other kernel
  // arguments and grid dimensions that count no retuned block are not.
  std::set<const PyNode*> unrelated;
  for (const auto& c : site.call->children)
    if (c.field == "args") unrelated.insert(&c);
    else if (c.field == "keywords" && c.child("value")) unrelated.insert(c.child("value"));
  for (const PyNode* d : dims)
    if (!followed_dims.count(d)) PyModule::walk(*d, [&](const PyNode& n) { unrelated.insert(&n); });
  unrelated.insert(other_factors.begin(), other_factors.end());
  unrelated.insert(kept_divisors.begin(), kept_divisors.end());
  for (const auto& c : changes) {
    std::set<const PyNode*> own_blocks = independent_launch_blocks(ctx, site, c.from, edited);
    const PyNode* other = launch_util::other_use_of_value(site, c.from, [&](const PyNode& n) {
      return edited.count(&n) || unrelated.count(&n) || own_blocks.count(&n);
    });
    if (other)
      return fail(Stage::Rewrite,
                  fmt::format("the launch also uses {} at line {} (`{}`): it may depend on {}; not retuned", c.from,
                              other->line, ltrim(ctx.task->line(other->line)), c.name),
                  other->line);
  }
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_grow_block_recipe() { return std::make_unique<BlockSizeRecipe>(BlockKind::Grow); }
std::unique_ptr<Recipe> make_resize_block_recipe() { return std::make_unique<BlockSizeRecipe>(BlockKind::Resize); }
std::unique_ptr<Recipe> make_grow_tile_recipe() { return std::make_unique<BlockSizeRecipe>(BlockKind::Tile); }

}  // namespace tdx
