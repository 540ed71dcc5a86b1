// bitonic-topk: a top-k loop of max / store / mask-out rounds becomes tl.topk and one store.
#include <fmt/format.h>

#include "tritondx/source/repeated_max_match.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

class BitonicTopkRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "bitonic-topk"; }
  std::string_view description() const override {
    return "Replaces a top-k loop (l0-repeated-max-selection: K rounds of `m, i = tl.max(x, 0, "
           "return_indices=True)`, `tl.store(ptr(k), m)`, `x = tl.where(cols == i, -inf, x)`) by "
           "`top = tl.topk(x, K)` and one `tl.store(ptr(tl.arange(0, K)), top)`: the store's address and mask "
           "with the loop variable replaced by tl.arange(0, K). tl.topk returns the K largest values in "
           "descending order with their multiplicities, as the rounds stored them (each round masks only one "
           "position). K must be a power of two no larger than x's length, a literal or a tl.constexpr, and "
           "nothing the loop computes may be read after it.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> BitonicTopkRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.proposal.params.value("loop_line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.task || !ctx.launch) return refuse("no kernel source");
  KernelView view(ctx);
  std::vector<std::string> rejected;
  auto found = l0::repeated_max_selections(view, &rejected);
  const l0::RepeatedMaxSelection* s = nullptr;
  for (const auto& m : found)
    if (m.loop->line == line) s = &m;
  if (!s) return refuse(rejected.empty() ? fmt::format("no top-k selection loop on line {}", line) : rejected.front());
  if (!stmt_util::alone_on_lines(ctx, *s->loop) || !stmt_util::alone_on_lines(ctx, *s->store))
    return refuse("the loop or its store shares a line with another statement");

  std::string top = view.fresh_name(s->tensor + "_top");
  std::string k_text = view.text(*s->trips_expr);
  std::vector<TextEdit> subs;
  const PyNode* store_call = s->store->child("value");
  PyModule::walk(*store_call, [&](const PyNode& n) {
    if (n.type == "Name" && n.str_field("id") == s->loop_var) subs.push_back(TextEdit::replace(n, fmt::format("tl.arange(0, {})", k_text)));
    if (n.type == "Name" && n.str_field("id") == s->value_name) subs.push_back(TextEdit::replace(n, top));
  });
  std::string loop_indent = indentation_of(ctx.task->source, s->loop->line);
  std::string body_indent = indentation_of(ctx.task->source, s->store->line);
  std::string store = TDX_TRY(stmt_util::render_lines(ctx, s->store->line, s->store->end_line, subs, body_indent, loop_indent));
  std::string text = fmt::format("{}{} = tl.topk({}, {})\n{}", loop_indent, top, s->tensor, k_text, store);
  return std::vector<TextEdit>{stmt_util::replace_lines(s->loop->line, s->loop->end_line, text)};
}

}  // namespace

std::unique_ptr<Recipe> make_bitonic_topk_recipe() { return std::make_unique<BitonicTopkRecipe>(); }

}  // namespace tdx
