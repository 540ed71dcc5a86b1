// int32-index-math: drop an int64 widening of index math that the captured sizes never need.
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class Int32IndexMathRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "int32-index-math"; }
  std::string_view description() const override {
    return "Removes the int64 widening l0-int64-index-math points at: `x.to(tl.int64)` and "
           "`tl.cast(x, tl.int64)` become `x` (parenthesized only where precedence needs it), and "
           "tl.full/tl.zeros/tl.arange with dtype=tl.int64 (tl.uint64) get tl.int32 (tl.uint32). The "
           "rule only proposes it when the captured launch bounds every tensor offset, integer "
           "argument and programs x block below 2^31, so the int32 arithmetic cannot overflow for the "
           "task's shapes; tensors of 2^31 elements or more would need the widening back.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

bool is_int64(const PyNode& n) {
  std::string d = normalize_triton_name(dotted_name(n));
  return d == "tl.int64" || d == "tl.uint64";
}

// Python's binding strength of an expression node (higher binds tighter); atoms are 100.
int precedence(const PyNode& n) {
  if (n.type == "BinOp") {
    std::string op = n.fields.value("op", "");
    if (op == "Pow") return 8;
    if (op == "Mult" || op == "Div" || op == "FloorDiv" || op == "Mod" || op == "MatMult") return 6;
    if (op == "Add" || op == "Sub") return 5;
    if (op == "LShift" || op == "RShift") return 4;
    if (op == "BitAnd") return 3;
    if (op == "BitXor") return 2;
    return 1;  // BitOr
  }
  if (n.type == "UnaryOp") return n.fields.value("op", "") == "Not" ? -1 : 7;
  if (n.type == "Compare") return 0;
  if (n.type == "BoolOp" || n.type == "IfExp" || n.type == "Lambda" || n.type == "NamedExpr") return -2;
  return 100;
}

// Does `operand`, put where `call` is, need parentheses to keep its meaning?
bool needs_parens(const PyNode& operand, const PyNode& call) {
  int p = precedence(operand);
  if (p == 100) return false;
  const PyNode* parent = call.parent;
  if (!parent) return true;
  if (parent->type == "BinOp") {
    int q = precedence(*parent);
    bool right = call.field == "right";
    return p < q || (p == q && (right != (parent->fields.value("op", "") == "Pow")));
  }
  if (parent->type == "UnaryOp") return p < precedence(*parent);
  if (parent->type == "Compare") return p <= 0;
  // Statement values, call arguments, keywords, subscript slices, list elements.
  return parent->type == "Attribute" || (parent->type == "Subscript" && call.field == "value");
}

Expected<std::vector<TextEdit>> Int32IndexMathRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  std::vector<TextEdit> edits;
  std::vector<const PyNode*> done;  // widenings already rewritten (skip ones nested inside them)
  auto nested_in_done = [&](const PyNode& n) {
    for (const PyNode* d : done)
      for (const PyNode* p = n.parent; p; p = p->parent)
        if (p == d) return true;
    return false;
  };
  PyModule::walk(*ctx.function, [&](const PyNode& call) {
    if (call.type != "Call" || call.line != line || nested_in_done(call)) return;
    std::string name = normalize_triton_name(call_name(call));
    const PyNode* f = call.child("func");
    const PyNode* operand = nullptr;
    if (f && f->type == "Attribute" && f->str_field("attr") == "to") {
      const PyNode* dt = argument(call, 0) ? argument(call, 0) : keyword(call, "dtype");
      if (dt && is_int64(*dt) && call.children_in("keywords").size() <= (argument(call, 0) ? 0u : 1u))
        operand = f->child("value");
    } else if (name == "tl.cast" && argument(call, 1) && is_int64(*argument(call, 1)) &&
               call.children_in("keywords").empty()) {
      operand = argument(call, 0);
    } else if (name == "tl.full" || name == "tl.zeros" || name == "tl.arange") {
      const PyNode* dt = keyword(call, "dtype");
      if (!dt && name == "tl.full") dt = argument(call, 2);
      if (dt && is_int64(*dt)) {
        std::string d = normalize_triton_name(dotted_name(*dt));
        std::string text = recipe_util::text(ctx, *dt);
        std::string to = d == "tl.int64" ? "int32" : "uint32";
        text.replace(text.rfind(d == "tl.int64" ? "int64" : "uint64"), d == "tl.int64" ? 5 : 6, to);
        edits.push_back(TextEdit::replace(*dt, text));
        done.push_back(&call);
      }
      return;
    }
    if (!operand) return;
    std::string text = recipe_util::text(ctx, *operand);
    if (needs_parens(*operand, call)) text = "(" + text + ")";
    edits.push_back(TextEdit::replace(call, text));
    done.push_back(&call);
  });
  if (edits.empty()) return fail(Stage::Rewrite, "no int64 widening on the finding's line", line);
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_int32_index_math_recipe() { return std::make_unique<Int32IndexMathRecipe>(); }

}  // namespace tdx
