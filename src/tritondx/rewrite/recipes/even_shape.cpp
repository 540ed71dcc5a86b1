// even-shape-heuristic: an unmasked copy of a masked access, selected by a constexpr EVEN flag
// that the launch computes from the shapes (limit % BLOCK == 0).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tritondx/ladder/l0_triage/block_index.h"
#include "tritondx/rewrite/recipes/launch_util.h"
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
           "Applies when the captured launch is even and every bound of the mask is then always true. "
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

// The call without its mask and other arguments.
std::string unmasked_call(const KernelContext& ctx, const PyNode& call, bool is_load) {
  std::vector<std::string> parts;
  int mask_pos = is_load ? 1 : 2;
  for (const auto& c : call.children) {
    if (c.field == "args" && c.index < mask_pos) parts.push_back(recipe_util::text(ctx, c));
    if (c.field == "args" && c.index > 2) parts.push_back(recipe_util::text(ctx, c));
    if (c.field == "keywords") {
      std::string k = c.str_field("arg");
      if (k != "mask" && k != "other") parts.push_back(recipe_util::text(ctx, c));
    }
  }
  std::string joined;
  for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  return fmt::format("{}({})", recipe_util::text(ctx, *call.child("func")), joined);
}

using Conditions = std::vector<std::pair<std::string, std::string>>;  // (limit, block) kernel names

// One statement holding masked accesses, and the condition under which their masks are true.
struct EvenStatement {
  const PyNode* stmt = nullptr;
  std::vector<const PyNode*> memops;
  Conditions conditions;  // sorted
};

// The statement of the masked accesses on `line`: every mask term a bound `index < n` of a block
// index tl.arange(0, BLOCK) against a kernel argument, even and always true for the launch.
Expected<EvenStatement> analyze(const KernelView& view, int line) {
  const KernelContext& ctx = view.ctx();
  EvenStatement es;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"}))
    if (op->line == line && KernelView::mask_arg(*op)) es.memops.push_back(op);
  if (es.memops.empty()) return fail(Stage::Rewrite, fmt::format("no masked tl.load/tl.store on line {}", line), line);
  const PyNode* stmt = es.memops.front();
  while (stmt && stmt->field != "body" && stmt->field != "orelse") stmt = stmt->parent;
  if (!stmt || stmt->type == "For" || stmt->type == "While" || stmt->type == "If" || stmt->type == "With")
    return fail(Stage::Rewrite, "the access is not in a simple statement", line);
  for (const PyNode* op : es.memops) {
    const PyNode* s = op;
    while (s && s != stmt) s = s->parent;
    if (!s) return fail(Stage::Rewrite, "masked accesses of one line in different statements", line);
  }
  std::string indent = indentation_of(ctx.task->source, stmt->line);
  if (static_cast<int>(indent.size()) + 1 != stmt->col)
    return fail(Stage::Rewrite, "the statement shares its line with another", line);
  es.stmt = stmt;
  for (const PyNode* op : es.memops) {
    for (const PyNode* c : l0::mask_conjuncts(view, *KernelView::mask_arg(*op))) {
      auto b = l0::mask_bound(view, *c);
      if (!b || !b->upper || b->inclusive)
        return fail(Stage::Rewrite, fmt::format("mask term `{}` is not a bound `index < n`", view.text(*c)), line);
      auto bi = l0::decompose_block_index(view, *b->index);
      const PyNode* size = bi ? argument(*bi->arange, 1) : nullptr;
      const PyNode* start = bi ? argument(*bi->arange, 0) : nullptr;
      if (!size || size->type != "Name" || !start || int_constant(*start) != 0 ||
          view.signature(size->str_field("id")) != "constexpr")
        return fail(Stage::Rewrite,
                    fmt::format("`{}`: the index is not a block tl.arange(0, BLOCK) of a constexpr", view.text(*c)), line);
      if (b->limit->type != "Name" || view.definition(*b->limit) || !view.is_param(b->limit->str_field("id")))
        return fail(Stage::Rewrite, fmt::format("`{}`: the bound is not a kernel argument", view.text(*c)), line);
      std::string limit = b->limit->str_field("id"), block = size->str_field("id");
      auto lv = ctx.launch->int_arg(limit), bv = ctx.launch->int_arg(block);
      if (!lv || !bv || *bv <= 0) return fail(Stage::Rewrite, "the captured launch has no value for the bound", line);
      if (*lv % *bv != 0)
        return fail(Stage::Rewrite,
                    fmt::format("{}={} is not a multiple of {}={}: the task's launch is not even", limit, *lv, block, *bv),
                    line);
      if (!b->always_true())
        return fail(Stage::Rewrite,
                    fmt::format("`{}` can be false even though {} % {} == 0 (the blocks overrun the bound)",
                                view.text(*c), limit, block),
                    line);
      if (std::find(es.conditions.begin(), es.conditions.end(), std::pair(limit, block)) == es.conditions.end())
        es.conditions.emplace_back(limit, block);
    }
  }
  std::sort(es.conditions.begin(), es.conditions.end());
  return es;
}

// `if FLAG: <statements with unmasked accesses> else: <statements as they were>`, over the lines
// from the first to the last statement of a group (siblings in one body; any statements between
// them are simple and copied into both branches).
Expected<TextEdit> guard_statements(const KernelContext& ctx, const std::vector<EvenStatement>& group,
                                    const std::string& flag) {
  int first = group.front().stmt->line, last = group.back().stmt->end_line;
  std::string indent = indentation_of(ctx.task->source, first);
  std::string block;
  for (int l = first; l <= last; ++l) block += std::string(ctx.task->line(l)) + "\n";
  std::vector<TextEdit> inner;
  for (const auto& es : group)
    for (const PyNode* op : es.memops) {
      bool is_load = normalize_triton_name(call_name(*op)) == "tl.load";
      TextEdit e = TextEdit::replace(*op, unmasked_call(ctx, *op, is_load));
      e.line -= first - 1;
      e.end_line -= first - 1;
      inner.push_back(std::move(e));
    }
  std::string unmasked = TDX_TRY(apply_edits(block, inner));
  auto reindent = [&](const std::string& b) {  // the statements' own indentation -> one level deeper
    std::string out;
    size_t start = 0;
    while (start < b.size()) {
      size_t end = b.find('\n', start);
      if (end == std::string::npos) end = b.size();
      std::string l = b.substr(start, end - start);
      if (l.rfind(indent, 0) == 0) l = l.substr(indent.size());
      out += (l.empty() ? "" : indent + "    ") + l + "\n";
      start = end + 1;
    }
    return out;
  };
  return TextEdit{first, 1, last + 1, 1,
                  fmt::format("{0}if {1}:\n{2}{0}else:\n{3}", indent, flag, reindent(unmasked), reindent(block))};
}

bool is_simple_statement(const PyNode& n) {
  return n.type == "Assign" || n.type == "AugAssign" || n.type == "AnnAssign" || n.type == "Expr" || n.type == "Pass";
}

Expected<std::vector<TextEdit>> EvenShapeRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  int line = in.proposal.params.value("line", in.finding.loc.line);
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  EvenStatement target = TDX_TRY(analyze(view, line));

  // Every masked statement that is even for this launch takes one flag whose condition is the
  // union of theirs (under it each of their masks is all true), the finding's own included.
  std::set<int> lines;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"}))
    if (KernelView::mask_arg(*op)) lines.insert(op->line);
  std::vector<EvenStatement> guarded{target};
  for (int l : lines) {
    auto es = analyze(view, l);
    if (!es) continue;
    bool seen = false;
    for (const auto& g : guarded) seen |= g.stmt == es->stmt;
    if (!seen) guarded.push_back(std::move(*es));
  }
  Conditions all;
  for (const auto& g : guarded)
    for (const auto& c : g.conditions)
      if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  std::sort(all.begin(), all.end());
  target.conditions = all;

  // The flag: EVEN_<LIMITS>, reused when the kernel already has it.
  std::string flag = "EVEN";
  for (const auto& [limit, block] : target.conditions) {
    std::string up = limit;
    std::transform(up.begin(), up.end(), up.begin(), [](unsigned char ch) { return std::toupper(ch); });
    flag += "_" + up;
  }
  if (view.is_param(flag))
    return fail(Stage::Rewrite, fmt::format("the kernel already has a {} parameter", flag), line);
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  std::vector<TextEdit> edits;
  std::string condition;
  for (const auto& [limit, block] : target.conditions) {
    std::string l = TDX_TRY(launch_text(ctx, *site.call, limit, line));
    std::string b = TDX_TRY(launch_text(ctx, *site.call, block, line));
    condition += fmt::format("{}{} % {} == 0", condition.empty() ? "" : " and ", l, b);
  }
  edits.push_back(TDX_TRY(launch_util::append_constexpr_param(ctx, flag, line)));
  // The launch passes the flag; a long condition gets its own line before the call.
  const PyNode* call_stmt = PyModule::enclosing_statement(*site.call);
  size_t call_line_length = ctx.task->line(site.call->end_line).size() + flag.size() + condition.size() + 3;
  if (call_line_length > 110 && call_stmt) {
    std::string local = flag;
    std::transform(local.begin(), local.end(), local.begin(), [](unsigned char ch) { return std::tolower(ch); });
    edits.push_back(TextEdit::insert_lines(
        call_stmt->line, fmt::format("{}{} = {}\n", indentation_of(ctx.task->source, call_stmt->line), local, condition)));
    edits.push_back(launch_util::set_keyword(*site.call, flag, local));
  } else {
    edits.push_back(launch_util::set_keyword(*site.call, flag, condition));
  }

  // The guarded statements, in source order.
  std::sort(guarded.begin(), guarded.end(), [](const auto& a, const auto& b) { return a.stmt->line < b.stmt->line; });
  // Group siblings: same body, only simple statements between them.
  std::vector<std::vector<EvenStatement>> groups;
  for (auto& es : guarded) {
    bool joined = false;
    if (!groups.empty()) {
      const PyNode* prev = groups.back().back().stmt;
      if (prev->parent == es.stmt->parent && prev->field == es.stmt->field) {
        joined = true;
        for (const PyNode* sib : prev->parent->children_in(prev->field))
          if (sib->index > prev->index && sib->index < es.stmt->index && !is_simple_statement(*sib)) joined = false;
      }
    }
    if (joined) groups.back().push_back(std::move(es));
    else groups.push_back({std::move(es)});
  }
  for (const auto& g : groups) edits.push_back(TDX_TRY(guard_statements(ctx, g, flag)));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_even_shape_heuristic_recipe() { return std::make_unique<EvenShapeRecipe>(); }

}  // namespace tdx
