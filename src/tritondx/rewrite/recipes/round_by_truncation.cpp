// round-by-truncation: `tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))` whose result is only
// ever converted to an integer becomes `v + tl.where(v >= 0, 0.5, -0.5)`: the conversion truncates.
#include <fmt/format.h>

#include <tuple>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

class RoundByTruncationRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "round-by-truncation"; }
  std::string_view description() const override {
    return "Rounds half away from zero without FRND: `r = tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))` "
           "(also with `v > 0`, `0 <= v`, `0 < v`, and 0.0) becomes `r = v + tl.where(v >= 0, 0.5, -0.5)` when "
           "every use of r is a conversion to an integer type (`r.to(tl.int8)`, ...). The conversion truncates "
           "toward zero, and v + 0.5 >= 0 where the condition holds and v - 0.5 < 0 where it does not, so "
           "truncation equals the floor and the ceil it replaces; the sums are the same fp32 operations as "
           "before, so the integers are bit-identical. Each element loses two FRND (floor, ceil), which run on "
           "a 16-per-clock pipe. Proposed by l2-narrow-pipe-bound.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// `E >= 0`, `E > 0`, `0 <= E`, `0 < E` (0 or 0.0): E, else null.
const PyNode* nonnegative_test_operand(const PyNode& test) {
  if (test.type != "Compare") return nullptr;
  const PyNode* left = test.child("left");
  const PyNode* right = test.child("comparators", 0);
  auto ops = test.fields.value("ops", nlohmann::json::array());
  if (!left || !right || ops.size() != 1 || !ops[0].is_string() || test.children_in("comparators").size() != 1)
    return nullptr;
  auto zero = [](const PyNode* n) { return number_constant(*n) == 0.0; };
  const std::string op = ops[0].get<std::string>();
  if ((op == "GtE" || op == "Gt") && zero(right)) return left;
  if ((op == "LtE" || op == "Lt") && zero(left)) return right;
  return nullptr;
}

// `tl.floor(E + 0.5)` / `tl.ceil(E - 0.5)`: E, else null.
const PyNode* shifted_operand(const PyNode* call, std::string_view fn, std::string_view op) {
  if (!call || call->type != "Call") return nullptr;
  std::string name = call_name(*call);
  if (name != fmt::format("tl.{}", fn) && name != fmt::format("tl.math.{}", fn)) return nullptr;
  const PyNode* arg = argument(*call, 0);
  if (!arg || arg->type != "BinOp" || arg->fields.value("op", "") != op) return nullptr;
  const PyNode* half = arg->child("right");
  if (!half || number_constant(*half) != 0.5) return nullptr;
  return arg->child("left");
}

bool integer_dtype(const std::string& dotted) {
  for (std::string_view t : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
    if (dotted == fmt::format("tl.{}", t)) return true;
  return false;
}

// A use `r.to(tl.intN, ...)`: the Name is the value of an Attribute `to` that is called with an
// integer dtype and no bitcast.
bool converted_to_integer(const PyNode& use) {
  const PyNode* attr = use.parent;
  if (!attr || attr->type != "Attribute" || use.field != "value" || attr->str_field("attr") != "to") return false;
  const PyNode* call = attr->parent;
  if (!call || call->type != "Call" || attr->field != "func") return false;
  if (const PyNode* bitcast = keyword(*call, "bitcast"); bitcast && !(bitcast->type == "Constant" &&
                                                                       bitcast->fields.value("value", nlohmann::json()) == false))
    return false;  // reinterprets the float's bits
  const PyNode* dtype = argument(*call, 0);
  if (!dtype) dtype = keyword(*call, "dtype");
  return dtype && integer_dtype(normalize_triton_name(dotted_name(*dtype)));
}

bool before(const PyNode& a, const PyNode& b) { return std::tie(a.line, a.col) < std::tie(b.line, b.col); }

bool in_loop_around(const PyNode& node, const PyNode& u) {
  for (const PyNode* loop = PyModule::enclosing_loop(node); loop; loop = PyModule::enclosing_loop(*loop))
    if (PyModule::inside(u, *loop)) return true;
  return false;
}

// The `if` whose body holds one node and whose else the other, or null.
const PyNode* exclusive_branches(const PyNode& a, const PyNode& b) {
  for (const PyNode* child = &a; child->parent; child = child->parent) {
    const PyNode* n = child->parent;
    if (n->type != "If" || !PyModule::inside(b, *n)) continue;
    const PyNode* bchild = &b;
    while (bchild->parent != n) bchild = bchild->parent;
    bool split = (child->field == "body" && bchild->field == "orelse") || (child->field == "orelse" && bchild->field == "body");
    return split ? n : nullptr;
  }
  return nullptr;
}

// Can the value `stmt` assigns reach the use `u`? Conservative: yes unless the use comes before
// the statement or inside it (its right-hand side reads the previous value), or sits in the other
// branch of an `if`, in each case with no loop around that could carry the value there; or a
// later statement of the same block assigns the name again before the use. (The view resolves a
// use to the last assignment in source order, ignoring branches, so a definition in an `else`
// must not hide one in the `then`.)
bool may_see(const KernelView& view, const PyNode& stmt, const PyNode& u) {
  if (before(u, stmt) || PyModule::inside(u, stmt)) return in_loop_around(stmt, u);
  if (const PyNode* branch = exclusive_branches(stmt, u)) return in_loop_around(*branch, u);
  const l0::Definition* d = view.definition(u);
  if (!d || d->stmt == &stmt) return true;
  return !(d->stmt->parent == stmt.parent && d->stmt->field == stmt.field && before(stmt, *d->stmt));
}

Expected<std::vector<TextEdit>> RoundByTruncationRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.proposal.params.value("line", in.finding.loc.line);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.function || !ctx.task || !ctx.launch) return refuse("no kernel source");
  KernelView view(ctx);
  for (const PyNode* where : recipe_util::kernel_calls_on_line(ctx, {"tl.where"}, line)) {
    const PyNode* test = argument(*where, 0);
    const PyNode* v = test ? nonnegative_test_operand(*test) : nullptr;
    const PyNode* up = shifted_operand(argument(*where, 1), "floor", "Add");
    const PyNode* down = shifted_operand(argument(*where, 2), "ceil", "Sub");
    if (!v || !up || !down) continue;
    std::string e = view.squashed_text(*v);
    if (view.squashed_text(*up) != e || view.squashed_text(*down) != e)
      return refuse("tl.where's condition, floor and ceil do not take the same value");
    const PyNode* stmt = PyModule::enclosing_statement(*where);
    std::string r = stmt ? recipe_util::assigned_name(*stmt) : "";
    if (r.empty() || stmt->child("value") != where)
      return refuse("the rounding is not the whole right-hand side of a `name = ...` statement");
    int uses = 0;
    for (const PyNode* u : view.uses(r)) {
      if (!may_see(view, *stmt, *u)) continue;
      if (!converted_to_integer(*u))
        return refuse(fmt::format("{} is used on line {} other than as `.to(<integer type>)`: the value must stay "
                                  "an integral float there",
                                  r, u->line));
      ++uses;
    }
    if (uses == 0) return refuse(fmt::format("{} is never converted to an integer", r));
    std::string replacement =
        fmt::format("{} + tl.where({}, 0.5, -0.5)", recipe_util::parenthesized(ctx, *v), recipe_util::text(ctx, *test));
    return std::vector<TextEdit>{TextEdit::replace(*where, replacement)};
  }
  return refuse("no `tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))` on the line");
}

}  // namespace

std::unique_ptr<Recipe> make_round_by_truncation_recipe() { return std::make_unique<RoundByTruncationRecipe>(); }

}  // namespace tdx
