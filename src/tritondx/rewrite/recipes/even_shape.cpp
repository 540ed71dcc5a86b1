// even-shape-heuristic: an unmasked copy of a masked access, selected by a constexpr EVEN flag
// that the launch computes from the shapes (limit % BLOCK == 0).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "tritondx/core/check.h"
#include "tritondx/source/block_index.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/mask_guard.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

using l0::KernelView;

class EvenShapeRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "even-shape-heuristic"; }
  std::string_view description() const override {
    return "Skips a mask when the shapes make it always true, and keeps it otherwise: the kernel gets a "
           "constexpr flag (EVEN_<LIMITS>: tl.constexpr), the launch call passes it computed from the "
           "shapes (`n % BLOCK == 0` for every bound `index < n` of the mask, with the index a block "
           "`start + tl.arange(0, BLOCK)`), and the statement with the masked tl.load/tl.store becomes "
           "`if EVEN: <unmasked> else: <masked>`. Triton resolves the branch at compile time, so an even "
           "launch compiles without per-element predicates and any other shape keeps the masked code. "
           "Applies when the captured launch is even and every bound of the mask is then always true. The "
           "bound and the block may be expressions of kernel arguments (`hd // 2`, `pad_hd // 2`); when they "
           "read only constexpr arguments the kernel decides it itself, `if (hd // 2) % (pad_hd // 2) == 0:`, "
           "and no flag is added. On a "
           "kernel under @triton.autotune or @triton.heuristics the flag is computed by a "
           "@triton.heuristics({\"EVEN_N\": lambda args: args[\"n\"] % args[\"BLOCK\"] == 0}) put right above "
           "@triton.jit, where each config's block is known. "
           "Proposed by l0-unneeded-mask, l2-excessive-predication and l2-narrow-global-access.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// `name` as the launch passes it, parenthesized unless atomic.
Expected<std::string> launch_text(const KernelContext& ctx, const PyNode& call, const std::string& name, int line) {
  const PyNode* arg = launch_util::passed_argument(ctx, call, name);
  if (!arg) return fail(Stage::Rewrite, fmt::format("the launch call does not pass {}", name), line);
  return recipe_util::parenthesized(ctx, *arg);
}

// `limit % block == 0` for one bound: both sides expressions of kernel arguments.
struct Condition {
  const PyNode* limit_expr = nullptr;
  const PyNode* block_expr = nullptr;
  std::string limit, block;  // source text
  std::vector<std::string> names;  // the kernel arguments both sides read, limit's first
  bool constexpr_only = false;
  bool operator==(const Condition& o) const { return limit == o.limit && block == o.block; }
  bool operator<(const Condition& o) const { return std::tie(limit, block) < std::tie(o.limit, o.block); }
};
using Conditions = std::vector<Condition>;  // sorted

// One statement holding masked accesses, and the condition under which their masks are true.
struct EvenStatement {
  mask_guard::MaskedStatement masked;
  Conditions conditions;
};

// The statement of the masked accesses on `line`: every mask term a bound `index < n` of a block
// index tl.arange(0, BLOCK) against an expression of kernel arguments, even and always true for
// the launch.
Expected<EvenStatement> analyze(const KernelView& view, int line) {
  EvenStatement es;
  es.masked = TDX_TRY(mask_guard::masked_statement(view, line));
  for (const PyNode* op : es.masked.memops) {
    for (const PyNode* c : l0::mask_conjuncts(view, *KernelView::mask_arg(*op))) {
      auto bb = TDX_TRY(mask_guard::block_bound(view, *c, line));
      const l0::MaskBound& b = bb.bound;
      auto lv = bb.limit_value, bv = bb.block_value;
      if (!lv || !bv || *bv <= 0) return fail(Stage::Rewrite, "the captured launch has no value for the bound", line);
      if (*lv % *bv != 0)
        return fail(Stage::Rewrite,
                    fmt::format("{}={} is not a multiple of {}={}: the task's launch is not even", bb.limit, *lv,
                                bb.block, *bv),
                    line);
      if (!b.always_true())
        return fail(Stage::Rewrite,
                    fmt::format("`{}` can be false even though {} % {} == 0 (the blocks overrun the bound)",
                                view.text(*c), bb.limit, bb.block),
                    line);
      Condition cond{bb.limit_expr, bb.block_expr, bb.limit, bb.block, bb.limit_names, bb.constexpr_only};
      for (const auto& n : bb.block_names)
        if (std::find(cond.names.begin(), cond.names.end(), n) == cond.names.end()) cond.names.push_back(n);
      if (std::find(es.conditions.begin(), es.conditions.end(), cond) == es.conditions.end())
        es.conditions.push_back(std::move(cond));
    }
  }
  std::sort(es.conditions.begin(), es.conditions.end());
  return es;
}

// `a % b == 0 and ...` with each condition's names spelled by `spell`.
Expected<std::string> condition_text(const KernelContext& ctx, const Conditions& conditions,
                                     const std::function<Expected<std::string>(const std::string&)>& spell,
                                     int line) {
  std::map<std::string, std::string> spelled;
  for (const auto& c : conditions)
    for (const auto& n : c.names)
      if (!spelled.contains(n)) spelled[n] = TDX_TRY(spell(n));
  auto lookup = [&](const std::string& n) -> std::optional<std::string> {
    auto it = spelled.find(n);
    return it == spelled.end() ? std::nullopt : std::optional(it->second);
  };
  std::string out;
  for (const auto& c : conditions) {
    auto l = recipe_util::with_names_replaced(ctx, *c.limit_expr, lookup);
    auto b = recipe_util::with_names_replaced(ctx, *c.block_expr, lookup);
    if (!l || !b) return fail(Stage::Rewrite, fmt::format("`{} % {}` spans several lines", c.limit, c.block), line);
    const bool l_atomic = c.limit_expr->type == "Name", b_atomic = c.block_expr->type == "Name";
    out += fmt::format("{}{} % {} == 0", out.empty() ? "" : " and ", l_atomic ? *l : "(" + *l + ")",
                       b_atomic ? *b : "(" + *b + ")");
  }
  return out;
}

Expected<void> launch_flag(const KernelContext& ctx, const std::string& flag, const Conditions& conditions, int line,
                           std::vector<TextEdit>& edits);
Expected<TextEdit> heuristic_flag(const KernelContext& ctx, const std::string& flag, const Conditions& conditions,
                                  int line);

Expected<std::vector<TextEdit>> EvenShapeRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  int line = in.proposal.params.value("line", in.finding.loc.line);
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  const bool wrapped = launch_util::refuse_wrapped(ctx, line).has_value();
  KernelView view(ctx);
  EvenStatement target = TDX_TRY(analyze(view, line));

  // Every masked statement that is even for this launch takes one condition, the union of
  // theirs (under it each of their masks is all true), the finding's own included.
  std::vector<EvenStatement> guarded{target};
  for (int l : mask_guard::masked_lines(view)) {
    auto es = analyze(view, l);
    if (!es) continue;
    bool seen = false;
    for (const auto& g : guarded) seen |= g.masked.stmt == es->masked.stmt;
    if (!seen) guarded.push_back(std::move(*es));
  }
  Conditions all;
  for (const auto& g : guarded)
    for (const auto& c : g.conditions)
      if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  std::sort(all.begin(), all.end());

  std::vector<TextEdit> edits;
  std::string guard_condition;
  if (std::all_of(all.begin(), all.end(), [](const Condition& c) { return c.constexpr_only; })) {
    // Only constexpr arguments: the kernel decides evenness itself, at compile time.
    guard_condition = TDX_TRY(condition_text(
        ctx, all, [](const std::string& n) -> Expected<std::string> { return n; }, line));
  } else {
    // The flag: EVEN_<LIMITS>, computed by the launch (or, on a wrapped kernel, by a heuristic).
    std::string flag = "EVEN";
    std::vector<std::string> limit_names;
    for (const auto& c : all)
      PyModule::walk(*c.limit_expr, [&](const PyNode& n) {
        if (n.type != "Name") return;
        std::string up = n.str_field("id");
        std::transform(up.begin(), up.end(), up.begin(), [](unsigned char ch) { return std::toupper(ch); });
        if (std::find(limit_names.begin(), limit_names.end(), up) == limit_names.end()) limit_names.push_back(up);
      });
    for (const auto& n : limit_names) flag += "_" + n;
    if (view.is_param(flag))
      return fail(Stage::Rewrite, fmt::format("the kernel already has a {} parameter", flag), line);
    edits.push_back(TDX_TRY(launch_util::append_constexpr_param(ctx, flag, line)));
    if (wrapped) {
      // An autotuner or heuristics may set the block per config: the flag is computed where the
      // config's values are known, by a @triton.heuristics right above @triton.jit.
      edits.push_back(TDX_TRY(heuristic_flag(ctx, flag, all, line)));
    } else {
      TDX_CHECK(launch_flag(ctx, flag, all, line, edits));
    }
    guard_condition = flag;
  }

  // The guarded statements, grouped by siblings, in source order.
  std::vector<mask_guard::MaskedStatement> statements;
  for (const auto& g : guarded) statements.push_back(g.masked);
  for (const auto& group : mask_guard::sibling_groups(std::move(statements)))
    edits.push_back(TDX_TRY(mask_guard::guard(ctx, group, guard_condition)));
  return edits;
}

// The kernel gets the flag as a constexpr parameter, and the launch call passes it computed from
// the shapes.
Expected<void> launch_flag(const KernelContext& ctx, const std::string& flag, const Conditions& conditions, int line,
                           std::vector<TextEdit>& edits) {
  auto site = TDX_TRY(launch_util::find_launch(ctx, line, /*through_warmup=*/true));
  // A handle launch: the warmup call passes the shapes (by name), and the flag goes to it and to the handle's call.
  const PyNode& shapes_call = site.warmup ? *site.warmup : *site.call;
  std::string condition = TDX_TRY(condition_text(
      ctx, conditions, [&](const std::string& n) { return launch_text(ctx, shapes_call, n, line); }, line));
  // A long condition, or one passed twice, gets its own line before the call.
  const PyNode* call_stmt = PyModule::enclosing_statement(shapes_call);
  size_t call_line_length = ctx.task->line(shapes_call.end_line).size() + flag.size() + condition.size() + 3;
  std::string value = condition;
  if ((call_line_length > 110 || site.warmup) && call_stmt) {
    value = flag;
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char ch) { return std::tolower(ch); });
    edits.push_back(TextEdit::insert_lines(
        call_stmt->line, fmt::format("{}{} = {}\n", indentation_of(ctx.task->source, call_stmt->line), value, condition)));
  }
  for (auto& e : TDX_TRY(launch_util::pass_new_parameter(ctx, site, flag, value, line))) edits.push_back(std::move(e));
  return {};
}

// The kernel gets the flag as a constexpr parameter and a @triton.heuristics, inserted right
// above its @triton.jit (under any @triton.autotune, so it sees each config's block), computes it.
Expected<TextEdit> heuristic_flag(const KernelContext& ctx, const std::string& flag, const Conditions& conditions,
                                  int line) {
  std::string condition = TDX_TRY(condition_text(
      ctx, conditions, [](const std::string& n) -> Expected<std::string> { return fmt::format("args[\"{}\"]", n); },
      line));
  return launch_util::insert_inner_heuristic(ctx, fmt::format("\"{}\": lambda args: {}", flag, condition), line);
}

}  // namespace

std::unique_ptr<Recipe> make_even_shape_heuristic_recipe() { return std::make_unique<EvenShapeRecipe>(); }

}  // namespace tdx
