// unmasked-full-blocks: masked accesses whose bound is not a multiple of 16 run unmasked in every
// program (or loop iteration) whose block lies wholly inside the bound; only the tail keeps the
// mask.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "tritondx/source/block_index.h"
#include "tritondx/rewrite/recipes/mask_guard.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

class UnmaskedFullBlocksRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "unmasked-full-blocks"; }
  std::string_view description() const override {
    return "For masked accesses `index < n` with index a block `start + tl.arange(0, BLOCK)` and n an "
           "integer argument that is not a multiple of 16 (so the JIT gives it no divisibility and "
           "AxisInfo makes every access of the mask one element wide): the statement becomes `if start "
           "+ BLOCK <= n: <unmasked> else: <as it was>`, a runtime branch per program (or loop "
           "iteration). Every block but the last is full, so nearly all programs run the unmasked copy, "
           "whose accesses are vectorized; the last keeps the mask. Unlike even-shape-heuristic it needs "
           "no even launch. Every masked statement whose masks are such bounds is guarded, siblings "
           "together. Refuses masks with other terms, bounds that are not kernel arguments, bounds that "
           "are multiples of 16 for the captured launch (the masks do not block vectorization) unless "
           "l2-excessive-predication proposed it for the predicate work, a single "
           "block, and statements already inside an `if`. Proposed by l0-mask-blocks-vectorization "
           "and l3-vectorization-lost (mask constancy lost at the bound), and by l2-excessive-predication "
           "when the launch's last tile is partial.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// The index without its broadcast (`offs[:, None]` -> `offs`) and, for a name assigned once,
// its value.
const PyNode* index_expression(const KernelView& view, const PyNode* index) {
  while (index && index->type == "Subscript") index = index->child("value");
  if (index && index->type == "Name") {
    const auto& defs = view.definitions(index->str_field("id"));
    if (defs.size() == 1 && defs[0].value && defs[0].stmt && defs[0].stmt->type == "Assign") return defs[0].value;
  }
  return index;
}

struct Guarded {
  mask_guard::MaskedStatement masked;
  std::string condition;  // `start + BLOCK <= n [and ...]`
};

Expected<Guarded> analyze(const KernelView& view, int line, bool for_predicates) {
  const KernelContext& ctx = view.ctx();
  auto refuse = [&](std::string why) -> Expected<Guarded> { return fail(Stage::Rewrite, std::move(why), line); };
  Guarded g;
  g.masked = TDX_TRY(mask_guard::masked_statement(view, line));
  if (g.masked.stmt->parent && g.masked.stmt->parent->type == "If")
    return refuse("the statement is already inside an `if` (a guard would nest)");
  std::vector<std::string> conditions;
  bool unaligned = false;
  for (const PyNode* op : g.masked.memops) {
    for (const PyNode* c : l0::mask_conjuncts(view, *KernelView::mask_arg(*op))) {
      auto bb = TDX_TRY(mask_guard::block_bound(view, *c, line));
      const std::string& limit = bb.limit;
      const std::string& block = bb.block;
      auto lv = bb.limit_value, bv = bb.block_value;
      if (!lv || !bv || *bv <= 0) return refuse("the captured launch has no value for the bound or the block");
      if (*lv % 16 != 0) unaligned = true;
      if (auto blocks = bb.index.blocks(); blocks && *blocks < 2)
        return refuse(fmt::format("`{}` covers a single block: no block is full", view.text(*c)));
      // The block's start: the index's terms other than the tl.arange, through broadcasts and names
      // assigned once (`offs_k[None, :] + k` with `offs_k = tl.arange(0, BLOCK_K)`: start `k`).
      std::string start;
      int ranges = 0;
      std::function<void(const PyNode&, int)> add_terms = [&](const PyNode& e, int depth) {
        for (const PyNode* t : recipe_util::sum_terms(e)) {
          const PyNode* resolved = index_expression(view, t);
          if (t == bb.index.arange || resolved == bb.index.arange) {
            ++ranges;
            continue;
          }
          bool holds_arange = false;
          if (resolved != t) PyModule::walk(*resolved, [&](const PyNode& n) { holds_arange |= &n == bb.index.arange; });
          if (holds_arange && depth < 4 && resolved->type == "BinOp" && resolved->str_field("op") == "Add") {
            add_terms(*resolved, depth + 1);
            continue;
          }
          const bool binds_tighter =
              t->type == "BinOp" && (t->str_field("op") == "Mult" || t->str_field("op") == "FloorDiv");
          start += (start.empty() ? "" : " + ") +
                   (binds_tighter ? recipe_util::text(ctx, *t) : recipe_util::parenthesized(ctx, *t));
        }
      };
      add_terms(*index_expression(view, bb.bound.index), 0);
      if (ranges != 1) return refuse(fmt::format("`{}`: the index is not written as `start + tl.arange(0, BLOCK)`",
                                                 view.text(*c)));
      std::string cond = fmt::format("{}{} <= {}", start.empty() ? "" : start + " + ", block, limit);
      if (std::find(conditions.begin(), conditions.end(), cond) == conditions.end()) conditions.push_back(cond);
    }
  }
  // Bounds that are multiples of 16 keep the vector width; the guard then pays only for the
  // predicate work (l2-excessive-predication's proposal says so).
  if (!unaligned && !for_predicates)
    return refuse("every bound is a multiple of 16 for the captured launch: the masks do not block vectorization");
  for (const auto& c : conditions) g.condition += (g.condition.empty() ? "" : " and ") + c;
  return g;
}

Expected<std::vector<TextEdit>> UnmaskedFullBlocksRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  const int line = in.proposal.params.value("line", in.finding.loc.line);
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  KernelView view(ctx);
  const bool for_predicates = in.proposal.params.value("predicates", false);
  Guarded target = TDX_TRY(analyze(view, line, for_predicates));
  std::vector<Guarded> guarded{target};
  for (int l : mask_guard::masked_lines(view)) {
    auto g = analyze(view, l, for_predicates);
    if (!g) continue;
    bool seen = false;
    for (const auto& h : guarded) seen |= h.masked.stmt == g->masked.stmt;
    if (!seen) guarded.push_back(std::move(*g));
  }
  // One guard per group of sibling statements with one condition.
  std::sort(guarded.begin(), guarded.end(), [](const auto& a, const auto& b) { return a.condition < b.condition; });
  std::vector<TextEdit> edits;
  for (size_t i = 0; i < guarded.size();) {
    size_t j = i;
    std::vector<mask_guard::MaskedStatement> same;
    while (j < guarded.size() && guarded[j].condition == guarded[i].condition) same.push_back(guarded[j++].masked);
    for (const auto& group : mask_guard::sibling_groups(std::move(same)))
      edits.push_back(TDX_TRY(mask_guard::guard(ctx, group, guarded[i].condition)));
    i = j;
  }
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_unmasked_full_blocks_recipe() { return std::make_unique<UnmaskedFullBlocksRecipe>(); }

}  // namespace tdx
