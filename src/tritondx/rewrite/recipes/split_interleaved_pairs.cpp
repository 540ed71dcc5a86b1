// split-interleaved-pairs: `tl.load(B + 2 * offs)` and `tl.load(B + 2 * offs + 1)` become one
// contiguous load of the row, reshaped to (E, 2) and split; two such stores become one of tl.join.
#include <fmt/format.h>

#include <map>
#include <set>

#include "tritondx/source/interleaved_pairs.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::InterleavedPair;
using l0::KernelView;

class SplitInterleavedPairsRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "split-interleaved-pairs"; }
  std::string_view description() const override {
    return "For every pair l0-interleaved-pair-access reports: `offs_pairs = tl.arange(0, 2 * E)` is "
           "defined after `offs = tl.arange(0, E)`; two loads become `B_pairs = tl.reshape(tl.load(B + "
           "offs_pairs, mask=offs_pairs < 2 * X, other=...), (E, 2))` and `B_even, B_odd = "
           "tl.split(B_pairs)` before the first of them, each load replaced by its half; two adjacent "
           "stores become one `tl.store(B + offs_pairs, tl.reshape(tl.join(v_even, v_odd), (2 * E,)), "
           "mask=...)` (the values cast to the pointer's element type, as the stores did). A mask `offs < "
           "X` covers pairs 0..X-1, i.e. elements 0..2X-1. Per row this alone can be slower (a "
           "layout conversion for the split); its value is that the row becomes contiguous, so "
           "rows-per-program can take several rows per program: the search expands it next and tries "
           "rows-per-program first.";
  }
  std::vector<std::string_view> enables() const override { return {"rows-per-program"}; }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// `2 * E`: a constexpr expression Triton folds.
std::string doubled(const KernelView& view, const PyNode& n) { return "2 * " + recipe_util::parenthesized(view.ctx(), n); }

// The base of `B + offs_pairs`: left of `+`, so only a lower-precedence expression needs parentheses.
std::string base_text(const KernelView& view, const PyNode& b) {
  bool low = b.type == "IfExp" || b.type == "Compare" || b.type == "BoolOp" || b.type == "Lambda" ||
             b.type == "NamedExpr" ||
             (b.type == "BinOp" && (b.fields.value("op", "") == "BitAnd" || b.fields.value("op", "") == "BitOr" ||
                                    b.fields.value("op", "") == "BitXor" || b.fields.value("op", "") == "LShift" ||
                                    b.fields.value("op", "") == "RShift"));
  return low ? "(" + view.text(b) + ")" : view.text(b);
}

// What the new names start with: the base when it is a name (q_row), else its pointer parameter
// without "_ptr" (a for a_ptr + offset), else "row".
std::string pair_name(const KernelView& view, const PyNode& base) {
  if (base.type == "Name") return base.str_field("id");
  std::string root = view.root_pointer(base);
  if (root.ends_with("_ptr")) root.resize(root.size() - 4);
  return root.empty() ? "row" : root;
}

Expected<std::vector<TextEdit>> SplitInterleavedPairsRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.task) return refuse("no kernel source");
  KernelView view(ctx);
  auto pairs = l0::interleaved_pairs(view);
  if (pairs.empty()) return refuse("no pair of stride-2 accesses (B + 2 * offs, B + 2 * offs + 1) in the kernel");
  const std::string tl = launch_util::tl_prefix(ctx);

  std::set<std::string> taken;
  auto fresh = [&](const std::string& name) {
    std::string n = name;
    for (int k = 2; view.binds(n) || taken.contains(n); ++k) n = fmt::format("{}_{}", name, k);
    taken.insert(n);
    return n;
  };

  std::vector<TextEdit> edits;
  std::map<int, std::string> inserts;  // line -> statements inserted before it, in order
  std::map<const PyNode*, std::string> pair_offsets;  // offs statement -> its offs_pairs name
  for (const InterleavedPair& p : pairs) {
    std::string& offs_pairs = pair_offsets[p.offs_stmt];
    if (offs_pairs.empty()) {
      offs_pairs = fresh(p.offs + "_pairs");
      inserts[p.offs_stmt->end_line + 1] +=
          fmt::format("{}{} = {}.arange(0, {})\n", indentation_of(ctx.task->source, p.offs_stmt->line), offs_pairs,
                      tl, doubled(view, *p.extent));
    }
    std::string address = fmt::format("{} + {}", base_text(view, *p.base), offs_pairs);
    std::string mask = p.bound ? fmt::format(", mask={} < {}", offs_pairs, doubled(view, *p.bound)) : "";
    std::string func = view.text(*p.even->child("func"));
    if (!p.store) {
      std::string stem = fresh(pair_name(view, *p.base) + "_pairs");
      std::string root = stem.substr(0, stem.rfind("_pairs"));
      std::string even = fresh(root + "_even"), odd = fresh(root + "_odd");
      std::string other = p.other ? ", other=" + view.text(*p.other) : "";
      const PyNode& first = p.even_stmt->line <= p.odd_stmt->line ? *p.even_stmt : *p.odd_stmt;
      std::string indent = indentation_of(ctx.task->source, first.line);
      inserts[first.line] += fmt::format("{0}{1} = {2}.reshape({3}({4}{5}{6}), ({7}, 2))\n{0}{8}, {9} = {2}.split({1})\n",
                                         indent, stem, tl, func, address, mask, other, view.text(*p.extent), even, odd);
      edits.push_back(TextEdit::replace(*p.even, even));
      edits.push_back(TextEdit::replace(*p.odd, odd));
      continue;
    }
    // Two adjacent store statements: the earlier is deleted, the later stores both halves.
    const PyNode& first = p.even_stmt->index < p.odd_stmt->index ? *p.even_stmt : *p.odd_stmt;
    const PyNode& second = &first == p.even_stmt ? *p.odd_stmt : *p.even_stmt;
    if (!stmt_util::alone_on_lines(ctx, first))
      return refuse(fmt::format("line {}: the store shares its line with another statement", first.line));
    const std::string element = view.root_pointer(*KernelView::pointer_arg(*p.even));
    std::vector<std::string> values;
    for (const PyNode* call : {p.even, p.odd}) {
      const PyNode* v = argument(*call, 1) ? argument(*call, 1) : keyword(*call, "value");
      if (!v) return refuse(fmt::format("line {}: the store has no value", call->line));
      auto extent = view.value(*p.extent);
      if (auto shape = view.shape(*v); shape && extent && *shape != std::vector<long long>{*extent})
        return refuse(fmt::format("line {}: the stored value is not a row of the pair's {} elements", call->line,
                                  view.text(*p.extent)));
      if (stmt_util::contains_call(*v, {"tl.load"}))
        return refuse(fmt::format("line {}: the stored value loads memory (it would move past the other store)",
                                  call->line));
      std::string text = view.text(*v);
      std::string cast = fmt::format(".to({}.dtype.element_ty)", element);
      bool cast_already = squash_blanks(text).ends_with(squash_blanks(cast));
      values.push_back(element.empty() || cast_already ? text : recipe_util::parenthesized(ctx, *v) + cast);
    }
    edits.push_back(stmt_util::replace_lines(first.line, first.end_line, ""));
    edits.push_back(TextEdit::replace(second, fmt::format("{}({}, {}.reshape({}.join({}, {}), ({},)){})", func, address,
                                                          tl, tl, values[0], values[1], doubled(view, *p.extent), mask)));
  }
  for (const auto& [at, text] : inserts) edits.push_back(TextEdit::insert_lines(at, text));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_split_interleaved_pairs_recipe() { return std::make_unique<SplitInterleavedPairsRecipe>(); }

}  // namespace tdx
