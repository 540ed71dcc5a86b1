// single-pass-reduction: sequential passes over a row (max, sum, normalize) -> one block per
// row that loads the row once, the block sized triton.next_power_of_2(n) at launch.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tritondx/source/block_index.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using recipe_util::squash;
using namespace l0;

// Elements one thread may hold for the whole row before the block is too large for registers.
constexpr long long kMaxElementsPerThread = 64;

class SinglePassReductionRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "single-pass-reduction"; }
  std::string_view description() const override {
    return "Fuses the sequential passes of a row reduction (a max pass `m = tl.maximum(m, tl.max(x))`, a "
           "sum pass `s += tl.sum(f(x))`, a normalize-and-store pass: softmax, log-softmax, norms) into "
           "straight-line code on one block that holds the whole row: the row is loaded once, each "
           "accumulator becomes the reduction itself, and the launch sizes the block "
           "triton.next_power_of_2(n) so it covers any row length. Applies when the passes are top-level "
           "`for start in range(0, n, BLOCK)` loops over fp32 data with identical index, pointer and mask, "
           "every access is masked by `index < n`, only the last pass stores, and the captured row fits "
           "the registers (next_power_of_2(n) <= 64 x 32 x num_warps elements). Proposed by "
           "l0-multi-pass-reduction.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// One pass: its loop, the statements before the load (the index), the load, the rest.
struct Pass {
  const PyNode* loop = nullptr;
  std::vector<const PyNode*> prelude;
  const PyNode* load_stmt = nullptr;
  const PyNode* load = nullptr;
  std::vector<const PyNode*> rest;
  // Index statements of a later pass beyond the first pass's (`mask = cols < n`): they name an
  // expression of the shared index, and are kept with that pass's statements.
  std::vector<const PyNode*> extra;
};

// `acc = tl.maximum(acc, R)`, `acc = tl.minimum(acc, R)`, `acc += R`, `acc = acc + R`.
struct Accumulation {
  const PyNode* stmt = nullptr;
  std::string acc;
  std::string kind;  // "max", "min", "sum"
  const PyNode* value = nullptr;
};

std::optional<Accumulation> accumulation(const PyNode& stmt) {
  Accumulation a{&stmt, {}, {}, nullptr};
  if (stmt.type == "AugAssign" && stmt.fields.value("op", "") == "Add") {
    const PyNode* t = stmt.child("target");
    if (!t || t->type != "Name") return std::nullopt;
    a.acc = t->str_field("id"), a.kind = "sum", a.value = stmt.child("value");
  } else if (stmt.type == "Assign") {
    auto targets = stmt.children_in("targets");
    const PyNode* v = stmt.child("value");
    if (targets.size() != 1 || targets[0]->type != "Name" || !v) return std::nullopt;
    a.acc = targets[0]->str_field("id");
    auto is_acc = [&](const PyNode* n) { return n && n->type == "Name" && n->str_field("id") == a.acc; };
    if (v->type == "BinOp" && v->fields.value("op", "") == "Add") {
      a.kind = "sum";
      if (is_acc(v->child("left"))) a.value = v->child("right");
      else if (is_acc(v->child("right"))) a.value = v->child("left");
    } else if (v->type == "Call") {
      std::string name = normalize_triton_name(call_name(*v));
      if (name != "tl.maximum" && name != "tl.minimum") return std::nullopt;
      a.kind = name == "tl.maximum" ? "max" : "min";
      if (is_acc(argument(*v, 0))) a.value = argument(*v, 1);
      else if (is_acc(argument(*v, 1))) a.value = argument(*v, 0);
    }
  }
  if (!a.value || PyModule::names_read(*a.value).contains(a.acc)) return std::nullopt;
  return a;
}

// Is `init` the identity of the accumulation kind?
bool is_identity(const KernelContext& ctx, const PyNode& init, std::string_view kind) {
  std::string t = squash(recipe_util::text(ctx, init));
  std::replace(t.begin(), t.end(), '\'', '"');
  if (kind == "max") return t == "-float(\"inf\")" || t == "float(\"-inf\")" || t == "-math.inf";
  if (kind == "min") return t == "float(\"inf\")" || t == "math.inf";
  if (auto v = number_constant(init)) return *v == 0.0;
  return false;
}

bool is_fp32_load_value(const KernelView& view, const PyNode& value, const PyNode& load) {
  if (&value == &load) return view.pointee_type(view.root_pointer(*KernelView::pointer_arg(load))) == "fp32";
  // tl.load(...).to(tl.float32)
  if (value.type != "Call") return false;
  const PyNode* f = value.child("func");
  if (!f || f->type != "Attribute" || f->str_field("attr") != "to" || f->child("value") != &load) return false;
  const PyNode* dt = argument(value, 0) ? argument(value, 0) : keyword(value, "dtype");
  return dt && normalize_triton_name(dotted_name(*dt)) == "tl.float32";
}

// The load's keywords other than mask= and other= (eviction policy, cache modifier, ...).
std::set<std::pair<std::string, std::string>> load_keywords(const KernelContext& ctx, const PyNode& load) {
  std::set<std::pair<std::string, std::string>> out;
  for (const PyNode* kw : load.children_in("keywords")) {
    std::string arg = kw->str_field("arg");
    if (arg != "mask" && arg != "other" && arg != "pointer" && kw->child("value"))
      out.insert({arg, squash(recipe_util::text(ctx, *kw->child("value")))});
  }
  return out;
}

Expected<std::vector<TextEdit>> SinglePassReductionRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> {
    return fail(Stage::Rewrite, std::move(why), line);
  };
  if (!ctx.function || !ctx.launch || !ctx.task || !ctx.ast) return refuse("no kernel AST or captured launch");
  KernelView view(ctx);
  std::string pointer = in.proposal.params.value("pointer", "");

  // 1. The passes: top-level loops of the kernel over the same range that load `pointer`.
  auto first_loads = recipe_util::kernel_calls_on_line(ctx, {"tl.load"}, line);
  if (first_loads.empty()) return refuse("no tl.load on the finding's line");
  const PyNode* loop0 = PyModule::enclosing_loop(*first_loads.front());
  if (!loop0 || loop0->type != "For" || loop0->parent != ctx.function)
    return refuse("the first pass is not a top-level `for` loop of the kernel");
  if (pointer.empty()) pointer = view.root_pointer(*KernelView::pointer_arg(*first_loads.front()));
  std::string iter_text = recipe_util::text(ctx, *loop0->child("iter"));
  std::vector<Pass> passes;
  for (const PyNode* stmt : ctx.function->children_in("body")) {
    if (stmt->type != "For" || recipe_util::text(ctx, *stmt->child("iter")) != iter_text) continue;
    bool reads = false;
    for (const PyNode* l : PyModule::calls(*stmt, {"tl.load", "triton.language.load"}))
      reads |= view.root_pointer(*KernelView::pointer_arg(*l)) == pointer;
    if (reads) passes.push_back({stmt, {}, nullptr, nullptr, {}});
  }
  if (passes.size() < 2 || passes.front().loop != loop0) return refuse("fewer than two top-level passes over " + pointer);

  // 2. The range: `for start in range(0, n, BLOCK)` with n a parameter and BLOCK a constexpr.
  const PyNode* iter = loop0->child("iter");
  std::string range_fn = iter->type == "Call" ? normalize_triton_name(call_name(*iter)) : "";
  if ((range_fn != "range" && range_fn != "tl.range") || !argument(*iter, 2) || argument(*iter, 3))
    return refuse("the passes do not loop over range(0, n, BLOCK)");
  const PyNode* start = argument(*iter, 0);
  const PyNode* bound = argument(*iter, 1);
  const PyNode* step = argument(*iter, 2);
  if (!int_constant(*start) || *int_constant(*start) != 0) return refuse("the passes do not start at 0");
  if (bound->type != "Name" || !view.is_param(bound->str_field("id")) || view.definition(*bound))
    return refuse("the loop bound is not a kernel parameter");
  if (step->type != "Name" || view.signature(step->str_field("id")) != "constexpr" || view.definition(*step))
    return refuse("the loop step is not a constexpr parameter");
  std::string n_name = bound->str_field("id"), block_name = step->str_field("id");
  const PyNode* target = loop0->child("target");
  if (!target || target->type != "Name") return refuse("the loop target is not a single name");
  std::string var = target->str_field("id");
  auto n = view.value(*bound);
  if (!n || *n < 1) return refuse(fmt::format("the captured launch gives no positive value for {}", n_name));
  long long block = next_pow2(*n);
  long long budget = kMaxElementsPerThread * 32 * std::max(ctx.launch->num_warps(), 1);
  if (block > budget)
    return refuse(fmt::format("a row of {}={} needs a block of {} elements, more than {} x 32 x {} warps; "
                              "this needs an online (chunked) reduction",
                              n_name, *n, block, kMaxElementsPerThread, ctx.launch->num_warps()));

  // 3. Each pass: the index statements, one load into a name, then reductions or the store.
  for (auto& p : passes) {
    const PyNode* loop = p.loop;
    if (loop->child("target") == nullptr || recipe_util::text(ctx, *loop->child("target")) != var ||
        !loop->children_in("orelse").empty())
      return refuse(fmt::format("the loop on line {} differs from the first pass", loop->line));
    for (const PyNode* s : loop->children_in("body")) {
      if (s->type != "Assign" && s->type != "AugAssign" && s->type != "AnnAssign" && s->type != "Expr")
        return refuse(fmt::format("line {}: a {} statement in a pass; only straight-line passes are fused", s->line,
                                  s->type));
      auto loads = PyModule::calls(*s, {"tl.load", "triton.language.load"});
      bool loads_row = false;
      for (const PyNode* l : loads) loads_row |= view.root_pointer(*KernelView::pointer_arg(*l)) == pointer;
      if (!p.load_stmt && loads_row) {
        auto targets = s->children_in("targets");
        if (s->type != "Assign" || targets.size() != 1 || targets[0]->type != "Name" || loads.size() != 1)
          return refuse(fmt::format("line {}: the row is not loaded into one name", s->line));
        p.load_stmt = s;
        p.load = loads.front();
      } else if (!p.load_stmt) {
        p.prelude.push_back(s);
      } else {
        if (loads_row) return refuse(fmt::format("line {}: pass loads the row twice", s->line));
        p.rest.push_back(s);
      }
    }
    if (!p.load_stmt) return refuse(fmt::format("the pass on line {} does not load the row", loop->line));
  }

  // 4. The passes must agree: same index statements, same load (the `other` may differ only in a
  // pass that stores element-wise under the load's mask), only the last pass stores.
  const Pass& p0 = passes.front();
  std::string load_name = p0.load_stmt->children_in("targets")[0]->str_field("id");
  if (!is_fp32_load_value(view, *p0.load_stmt->child("value"), *p0.load))
    return refuse("the row is not fp32 (loaded or cast with .to(tl.float32)); fusing would change the "
                  "accumulators' types");
  const PyNode* mask0 = KernelView::mask_arg(*p0.load);
  if (!mask0) return refuse("the row load has no mask; a larger block would read past the row");
  std::set<std::string> written_in_passes;
  written_in_passes.insert(load_name);
  for (const auto& p : passes)
    for (const PyNode* s : p.rest) written_in_passes.merge(PyModule::names_written(*s));
  for (size_t k = 0; k < passes.size(); ++k) {
    Pass& p = passes[k];
    if (p.prelude.size() < p0.prelude.size())
      return refuse(fmt::format("the pass on line {} computes its index differently", p.loop->line));
    std::set<std::string> index_names;
    for (const PyNode* s : p0.prelude) index_names.merge(PyModule::names_written(*s));
    for (size_t i = p0.prelude.size(); i < p.prelude.size(); ++i) {
      const PyNode* s = p.prelude[i];
      auto targets = s->children_in("targets");
      if (s->type != "Assign" || targets.size() != 1 || targets[0]->type != "Name" ||
          stmt_util::contains_call(*s, {"tl.load", "tl.store"}) || index_names.contains(targets[0]->str_field("id")))
        return refuse(fmt::format("the pass on line {} computes its index differently", p.loop->line));
      for (const auto& r : PyModule::names_read(*s))
        if (written_in_passes.contains(r))
          return refuse(fmt::format("line {}: the index reads {}, which the passes change", s->line, r));
      p.extra.push_back(s);
    }
    p.prelude.resize(p0.prelude.size());
    for (size_t i = 0; i < p.prelude.size(); ++i) {
      if (squash(recipe_util::text(ctx, *p.prelude[i])) != squash(recipe_util::text(ctx, *p0.prelude[i])))
        return refuse(fmt::format("line {}: the index differs from the first pass", p.prelude[i]->line));
      if (stmt_util::contains_call(*p.prelude[i], {"tl.load", "tl.store"}))
        return refuse(fmt::format("line {}: memory access before the row load", p.prelude[i]->line));
      for (const auto& r : PyModule::names_read(*p.prelude[i]))
        if (written_in_passes.contains(r))
          return refuse(fmt::format("line {}: the index reads {}, which the passes change", p.prelude[i]->line, r));
    }
    if (p.load_stmt->children_in("targets")[0]->str_field("id") != load_name)
      return refuse(fmt::format("line {}: the pass loads into another name than {}", p.load_stmt->line, load_name));
    const PyNode* ptr = KernelView::pointer_arg(*p.load);
    const PyNode* mask = KernelView::mask_arg(*p.load);
    // A mask named by an extra index statement stands for that statement's expression.
    auto mask_text = [&](const PyNode* m) {
      if (m && m->type == "Name")
        for (const PyNode* e : p.extra)
          if (e->children_in("targets")[0]->str_field("id") == m->str_field("id")) m = e->child("value");
      return m ? squash(recipe_util::text(ctx, *m)) : std::string();
    };
    if (squash(recipe_util::text(ctx, *ptr)) != squash(recipe_util::text(ctx, *KernelView::pointer_arg(*p0.load))) ||
        !mask || mask_text(mask) != squash(recipe_util::text(ctx, *mask0)))
      return refuse(fmt::format("line {}: the pass loads other addresses or under another mask", p.load->line));
    bool stores = false, mixes = false;
    for (const PyNode* s : p.rest) {
      stores |= stmt_util::contains_call(*s, {"tl.store", "tl.atomic_add", "tl.atomic_max", "tl.atomic_min",
                                              "tl.atomic_xchg", "tl.atomic_cas"});
      mixes |= stmt_util::contains_call(
          *s, {"tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.reduce", "tl.xor_sum", "tl.cumsum",
               "tl.cumprod", "tl.associative_scan", "tl.dot", "tl.trans", "tl.permute", "tl.reshape", "tl.view",
               "tl.sort", "tl.flip", "tl.gather", "tl.histogram"});
      if (s->type == "Expr" && !stmt_util::contains_call(*s, {"tl.store"}))
        return refuse(fmt::format("line {}: an expression statement other than tl.store in a pass", s->line));
    }
    // Later passes would read what this pass leaves in the row's or the index's names.
    if (k + 1 != passes.size()) {
      std::set<std::string> shared = {load_name};
      for (const PyNode* s : p0.prelude) shared.merge(PyModule::names_written(*s));
      for (const PyNode* s : p.rest)
        for (const auto& w : PyModule::names_written(*s))
          if (shared.contains(w))
            return refuse(fmt::format("line {}: the pass reassigns {}, which the later passes read as loaded",
                                      s->line, w));
    }
    if (stores && k + 1 != passes.size())
      return refuse(fmt::format("the pass on line {} stores before a later pass reads the row", p.loop->line));
    if (!stores && !mixes)
      return refuse(fmt::format("the pass on line {} neither reduces nor stores", p.loop->line));
    if (!is_fp32_load_value(view, *p.load_stmt->child("value"), *p.load) ||
        (p.load_stmt->child("value") == p.load) != (p0.load_stmt->child("value") == p0.load) ||
        load_keywords(ctx, *p.load) != load_keywords(ctx, *p0.load))
      return refuse(fmt::format("line {}: the pass loads the row differently", p.load->line));
    const PyNode* other = KernelView::other_arg(*p.load);
    const PyNode* other0 = KernelView::other_arg(*p0.load);
    std::string o = other ? squash(recipe_util::text(ctx, *other)) : "";
    std::string o0 = other0 ? squash(recipe_util::text(ctx, *other0)) : "";
    if (o != o0) {
      // The fused load fills masked lanes with the first pass's `other`: harmless only where
      // they stay in their lanes and are never stored.
      if (mixes)
        return refuse(fmt::format("line {}: the pass reduces a load whose other= ({}) differs from the first "
                                  "pass's ({})", p.load->line, o.empty() ? "none" : o, o0.empty() ? "none" : o0));
      for (const PyNode* s : p.rest)
        for (const PyNode* st : PyModule::calls(*s, {"tl.store"})) {
          const PyNode* sm = KernelView::mask_arg(*st);
          if (!sm || mask_text(sm) != squash(recipe_util::text(ctx, *mask0)))
            return refuse(fmt::format("line {}: the store's mask differs from the load's, and the loads' other= "
                                      "differ", st->line));
        }
    }
  }

  // 5. A larger block must stay in bounds: every access in the passes is masked by `index < n`,
  // and BLOCK and the loop variable appear nowhere else.
  for (const auto& p : passes)
    for (const PyNode* op : PyModule::calls(*p.loop, {"tl.load", "tl.store", "tl.atomic_add"})) {
      const PyNode* mask = KernelView::mask_arg(*op);
      bool bounded = false;
      if (mask)
        for (const PyNode* c : mask_conjuncts(view, *mask))
          if (auto b = mask_bound(view, *c); b && b->upper && b->limit && recipe_util::text(ctx, *b->limit) == n_name)
            bounded = true;
      if (!bounded) return refuse(fmt::format("line {}: the access is not masked by `< {}`", op->line, n_name));
    }
  auto in_passes = [&](const PyNode& node) {
    for (const auto& p : passes)
      if (PyModule::inside(node, *p.loop)) return true;
    return false;
  };
  for (const PyNode* use : view.uses(block_name))
    if (!in_passes(*use)) return refuse(fmt::format("line {}: {} is used outside the passes", use->line, block_name));
  for (const PyNode* use : view.uses(var))
    if (!in_passes(*use)) return refuse(fmt::format("line {}: {} is used after the passes", use->line, var));

  // 6. The launch: BLOCK = triton.next_power_of_2(<the argument passed for n>).
  const PyNode* call = stmt_util::launch_call(ctx);
  if (!call) return refuse("no kernel[grid](...) launch call to resize the block");
  const PyNode* n_arg = stmt_util::launch_argument(ctx, *call, n_name);
  const PyNode* block_arg = stmt_util::launch_argument(ctx, *call, block_name);
  if (!n_arg || !block_arg)
    return refuse(fmt::format("the launch call does not pass {} and {} (autotuned or defaulted)", n_name, block_name));
  if (!stmt_util::imports_triton(ctx)) return refuse("the task does not `import triton`");

  std::vector<TextEdit> edits;
  edits.push_back(TextEdit::replace(*block_arg, fmt::format("triton.next_power_of_2({})", recipe_util::text(ctx, *n_arg))));

  // 7. The kernel: each loop becomes its body run once with `start` = 0; the first pass keeps the
  // index and the load, later passes only their reductions or store; accumulators initialized
  // to their identity become the reduction itself.
  const auto& top = ctx.function->children_in("body");
  auto init_of = [&](const Accumulation& a, const PyNode& loop) -> const PyNode* {
    const PyNode* init = nullptr;
    for (const PyNode* s : top) {
      if (s == &loop) break;
      if (init && PyModule::names_read(*s).contains(a.acc)) return nullptr;  // read before the loop
      if (PyModule::names_written(*s).contains(a.acc)) {
        auto targets = s->children_in("targets");
        init = s->type == "Assign" && targets.size() == 1 && targets[0]->type == "Name" ? s : nullptr;
        if (!init) return nullptr;
      }
    }
    return init && is_identity(ctx, *init->child("value"), a.kind) ? init : nullptr;
  };
  for (size_t k = 0; k < passes.size(); ++k) {
    const Pass& p = passes[k];
    auto body = p.loop->children_in("body");
    std::string from = indentation_of(ctx.task->source, body.front()->line);
    std::string to = indentation_of(ctx.task->source, p.loop->line);
    std::vector<const PyNode*> keep;
    if (k == 0) {
      keep = p.prelude;
      keep.push_back(p.load_stmt);
    }
    keep.insert(keep.end(), p.extra.begin(), p.extra.end());
    keep.insert(keep.end(), p.rest.begin(), p.rest.end());
    // Which accumulations assign their name once in this pass?
    std::map<std::string, int> assigned;
    for (const PyNode* s : p.rest)
      for (const auto& w : PyModule::names_written(*s)) ++assigned[w];
    std::string text;
    for (const PyNode* s : keep) {
      std::vector<TextEdit> subs;
      bool whole = false;
      if (auto a = accumulation(*s); a && assigned[a->acc] == 1)
        if (const PyNode* init = init_of(*a, *p.loop)) {
          edits.push_back(stmt_util::replace_lines(init->line, init->end_line, ""));
          subs.push_back(TextEdit::replace(*s, fmt::format("{} = {}", a->acc, recipe_util::text(ctx, *a->value))));
          whole = true;
        }
      if (!whole) {
        // start + X -> X; any other read of start -> 0.
        std::vector<const PyNode*> covered;
        PyModule::walk(*s, [&](const PyNode& e) {
          if (e.type != "BinOp" || e.fields.value("op", "") != "Add") return;
          for (auto [side, other] : {std::pair{"left", "right"}, std::pair{"right", "left"}}) {
            const PyNode* v = e.child(side);
            const PyNode* o = e.child(other);
            if (v && o && v->type == "Name" && v->str_field("id") == var && !PyModule::names_read(*o).contains(var)) {
              subs.push_back(TextEdit::replace(e, recipe_util::text(ctx, *o)));
              covered.push_back(v);
              return;
            }
          }
        });
        PyModule::walk(*s, [&](const PyNode& e) {
          if (e.type == "Name" && e.str_field("id") == var && std::find(covered.begin(), covered.end(), &e) == covered.end()) {
            bool nested = false;
            for (const auto& sub : subs)
              nested |= std::tie(sub.line, sub.col) <= std::tie(e.line, e.col) &&
                        std::tie(e.end_line, e.end_col) <= std::tie(sub.end_line, sub.end_col);
            if (!nested) subs.push_back(TextEdit::replace(e, "0"));
          }
        });
      }
      text += TDX_TRY(stmt_util::render_lines(ctx, s->line, s->end_line, subs, from, to));
    }
    edits.push_back(stmt_util::replace_lines(p.loop->line, p.loop->end_line, text));
  }
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_single_pass_reduction_recipe() { return std::make_unique<SinglePassReductionRecipe>(); }

}  // namespace tdx
