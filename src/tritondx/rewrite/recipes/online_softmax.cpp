// online-softmax: a max pass and a sum-of-exponentials pass over a row become one loop with a
// running max and a rescaled sum, for rows too long for one block.
#include <fmt/format.h>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using recipe_util::assigned_name;
using recipe_util::squash;
using l0::KernelView;

class OnlineSoftmaxRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "online-softmax"; }
  std::string_view description() const override {
    return "Fuses two sequential passes over a row, a max pass `m = tl.maximum(m, tl.max(x, axis=0))` and "
           "a sum pass `s += tl.sum(tl.exp(x - m), axis=0)` over the same chunks (same loop, index "
           "statements and load), into one loop that keeps a running max and rescales the running sum "
           "when the max grows: `m_new = tl.maximum(m, tl.max(x, axis=0)); s = s * tl.exp(m - m_new) + "
           "tl.sum(tl.exp(x - m_new), axis=0); m = m_new` (Milakov and Gimelshein's online softmax). "
           "The row is read once instead of twice, whatever its length, so it applies where "
           "single-pass-reduction cannot (a row larger than one block). A max of -inf (a chunk whose "
           "values are all -inf) is replaced by 0 inside the exponentials, so such chunks add 0 instead "
           "of NaN. Any statements after the two passes (a normalize pass, a log) stay as they are. "
           "The result equals the two-pass one up to rounding. Proposed by l0-multi-pass-reduction.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// A pass: the loop's statements up to the row load (index + load), and the one statement after.
struct TwoPart {
  std::vector<const PyNode*> head;  // index statements and the load, in order
  const PyNode* update = nullptr;   // the single statement after the load
  std::string loaded;               // the name the row is loaded into
};

std::optional<TwoPart> split(const PyNode& loop, const std::string& pointer, const KernelView& view) {
  TwoPart out;
  for (const PyNode* s : loop.children_in("body")) {
    if (!out.loaded.empty()) {
      if (out.update) return std::nullopt;
      out.update = s;
      continue;
    }
    out.head.push_back(s);
    for (const PyNode* l : PyModule::calls(*s, {"tl.load", "triton.language.load"}))
      if (view.root_pointer(*KernelView::pointer_arg(*l)) == pointer) {
        out.loaded = assigned_name(*s);
        if (out.loaded.empty()) return std::nullopt;
      }
  }
  if (out.loaded.empty() || !out.update || !loop.children_in("orelse").empty()) return std::nullopt;
  return out;
}

Expected<std::vector<TextEdit>> OnlineSoftmaxRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.task) return refuse("no kernel source");
  KernelView view(ctx);
  const std::string tl = launch_util::tl_prefix(ctx);
  std::string pointer = in.proposal.params.value("pointer", "");
  if (pointer.empty()) return refuse("the proposal names no pointer");

  // Two consecutive top-level loops with the same header that load the row.
  auto body = ctx.function->children_in("body");
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i]->type != "For") continue;
    size_t j = i + 1;
    std::vector<const PyNode*> between;
    while (j < body.size() && body[j]->type != "For") between.push_back(body[j++]);
    if (j >= body.size()) break;
    const PyNode* a = body[i];
    const PyNode* b = body[j];
    auto pa = split(*a, pointer, view);
    auto pb = split(*b, pointer, view);
    if (!pa || !pb) continue;
    if (squash(recipe_util::text(ctx, *a->child("target"))) != squash(recipe_util::text(ctx, *b->child("target"))) ||
        squash(recipe_util::text(ctx, *a->child("iter"))) != squash(recipe_util::text(ctx, *b->child("iter"))) ||
        pa->head.size() != pb->head.size())
      continue;
    bool same = pa->loaded == pb->loaded;
    for (size_t k = 0; same && k < pa->head.size(); ++k)
      same = squash(recipe_util::text(ctx, *pa->head[k])) == squash(recipe_util::text(ctx, *pb->head[k]));
    if (!same) continue;
    const std::string x = pa->loaded;

    // Pass a: m = tl.maximum(m, tl.max(x, axis=0)).
    const std::string m = assigned_name(*pa->update);
    if (m.empty() || squash(recipe_util::text(ctx, *pa->update->child("value"))) !=
                         squash(fmt::format("{0}.maximum({1}, {0}.max({2}, axis=0))", tl, m, x)))
      continue;
    // Pass b: s += tl.sum(tl.exp(x - m), axis=0), or s = s + ...
    const PyNode* u = pb->update;
    std::string s_name, summand;
    if (u->type == "AugAssign" && u->fields.value("op", "") == "Add" && u->child("target") &&
        u->child("target")->type == "Name") {
      s_name = u->child("target")->str_field("id");
      summand = squash(recipe_util::text(ctx, *u->child("value")));
    } else if (std::string n = assigned_name(*u); !n.empty() && u->child("value")->type == "BinOp" &&
                                                   u->child("value")->fields.value("op", "") == "Add" &&
                                                   squash(recipe_util::text(ctx, *u->child("value")->child("left"))) == n) {
      s_name = n;
      summand = squash(recipe_util::text(ctx, *u->child("value")->child("right")));
    }
    if (s_name.empty() || summand != squash(fmt::format("{0}.sum({0}.exp({1} - {2}), axis=0)", tl, x, m))) continue;
    // Between the passes only the sum's initialization to 0.
    bool sum_init = false;
    for (const PyNode* s : between) {
      if (assigned_name(*s) != s_name || squash(recipe_util::text(ctx, *s->child("value"))) != "0.0")
        return refuse(fmt::format("line {}: only `{} = 0.0` may stand between the max and the sum passes", s->line, s_name));
      sum_init = true;
    }
    // The running max starts at -inf, and the sum at 0, before the first pass.
    bool max_init = false;
    for (size_t k = 0; k < i; ++k) {
      std::string n = assigned_name(*body[k]);
      std::string v = n.empty() ? "" : squash(recipe_util::text(ctx, *body[k]->child("value")));
      if (n == m) max_init = v == "-float(\"inf\")" || v == "-float('inf')" || v == "float(\"-inf\")" || v == "float('-inf')";
      if (n == s_name) sum_init = v == "0.0";
    }
    if (!max_init) return refuse(fmt::format("{} does not start at -inf before the max pass", m));
    if (!sum_init) return refuse(fmt::format("{} does not start at 0.0 before the sum pass", s_name));
    const std::string m_new = m + "_new", m_safe = m + "_safe";
    for (const auto& fresh : {m_new, m_safe})
      if (view.binds(fresh))
        return refuse(fmt::format("the kernel already uses the name {}", fresh));

    // The fused loop: pass a's header, index and load, then the online update.
    std::string ind = indentation_of(ctx.task->source, pa->update->line);
    std::string text;
    // (an initialization between the passes moves before the fused loop)
    for (const PyNode* s : between) text += TDX_TRY(stmt_util::render_lines(ctx, s->line, s->end_line, {}));
    text += TDX_TRY(stmt_util::render_lines(ctx, a->line, pa->head.back()->end_line, {}));
    text += fmt::format("{}{} = {}.maximum({}, {}.max({}, axis=0))\n", ind, m_new, tl, m, tl, x);
    text += fmt::format("{}{} = {}.where({} == -float(\"inf\"), 0.0, {})\n", ind, m_safe, tl, m_new, m_new);
    text += fmt::format("{0}{1} = {1} * {2}.exp({3} - {4}) + {2}.sum({2}.exp({5} - {4}), axis=0)\n", ind, s_name, tl,
                        m, m_safe, x);
    text += fmt::format("{}{} = {}\n", ind, m, m_new);
    return std::vector<TextEdit>{stmt_util::replace_lines(a->line, b->end_line, text)};
  }
  return refuse("no max pass followed by a sum-of-exponentials pass over the same chunks of " + pointer);
}

}  // namespace

std::unique_ptr<Recipe> make_online_softmax_recipe() { return std::make_unique<OnlineSoftmaxRecipe>(); }

}  // namespace tdx
