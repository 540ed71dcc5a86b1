// single-pass-reduction: sequential passes over a row (max, sum, normalize) -> one block per
// row that loads the row once, the block sized triton.next_power_of_2(n) at launch.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tritondx/source/block_index.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/accumulation.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using recipe_util::squash;
using namespace l0;
using accumulation::Accumulation;

// Elements one thread may hold for the whole row before the block is too large for registers.
constexpr long long kMaxElementsPerThread = 64;

class SinglePassReductionRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "single-pass-reduction"; }
  std::string_view description() const override {
    return "Fuses the sequential passes of a row reduction (a max pass `m = tl.maximum(m, tl.max(x))`, a "
           "sum pass `s += tl.sum(f(x))`, a normalize-and-store pass: softmax, log-softmax, norms) into "
           "straight-line code on one block that holds the whole row: the row is loaded once, each "
           "accumulator (scalar, or a block reduced after its loop as in a layer norm) becomes the reduction "
           "itself, a pass that reassigns the row writes a fresh name, and the launch sizes the block "
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
  std::string load_name;
  std::vector<const PyNode*> rest;
  // Index statements of a later pass beyond the first pass's (`mask = cols < n`): they name an
  // expression of the shared index, and are kept with that pass's statements.
  std::vector<const PyNode*> extra;
  // Names of the row or the index this pass reassigns, and the fresh names it writes instead.
  std::map<std::string, std::string> renames;
};

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
  // The passes' ranges agree in their positional arguments: `range` and `tl.range(...,
  // num_stages=3)` run the same iterations, and the fused code has no loop left to pipeline.
  std::string iter_text = view.range_key(*loop0->child("iter"));
  std::vector<Pass> passes;
  for (const PyNode* stmt : ctx.function->children_in("body")) {
    if (stmt->type != "For" || view.range_key(*stmt->child("iter")) != iter_text) continue;
    bool reads = false;
    for (const PyNode* l : PyModule::calls(*stmt, {"tl.load", "triton.language.load"}))
      reads |= view.root_pointer(*KernelView::pointer_arg(*l)) == pointer;
    if (!reads) continue;
    Pass pass;
    pass.loop = stmt;
    passes.push_back(std::move(pass));
  }
  // The finding may point at a later pass (the rule saw the earlier ones differently); all are fused.
  if (passes.size() < 2 || std::none_of(passes.begin(), passes.end(), [&](const Pass& p) { return p.loop == loop0; }))
    return refuse("fewer than two top-level passes over " + pointer);
  loop0 = passes.front().loop;

  // 2. The range: `for start in range(0, n, BLOCK)` with n a parameter and BLOCK a constexpr.
  auto range_args = KernelView::range_arguments(*loop0->child("iter"));
  if (range_args.size() != 3) return refuse("the passes do not loop over range(0, n, BLOCK)");
  const PyNode* start = range_args[0];
  const PyNode* bound = range_args[1];
  const PyNode* step = range_args[2];
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
        p.load_name = targets[0]->str_field("id");
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
  // pass that stores element-wise under the load's mask), only the last pass stores. A later pass
  // that loads into another name gets that name as an alias of the first pass's.
  const Pass& p0 = passes.front();
  const std::string& load_name = p0.load_name;
  if (!is_fp32_load_value(view, *p0.load_stmt->child("value"), *p0.load))
    return refuse("the row is not fp32 (loaded or cast with .to(tl.float32)); fusing would change the "
                  "accumulators' types");
  const PyNode* mask0 = KernelView::mask_arg(*p0.load);
  if (!mask0) return refuse("the row load has no mask; a larger block would read past the row");
  // The names every pass reads as loaded: the row and the first pass's index.
  std::set<std::string> shared;
  for (const auto& p : passes) shared.insert(p.load_name);
  for (const PyNode* s : p0.prelude) shared.merge(PyModule::names_written(*s));
  std::set<std::string> written_in_passes;
  for (const auto& p : passes) written_in_passes.insert(p.load_name);
  std::set<std::string> accumulators;
  for (const auto& p : passes)
    for (const PyNode* s : p.rest) {
      written_in_passes.merge(PyModule::names_written(*s));
      if (auto a = accumulation::of(*s)) accumulators.insert(a->acc);
    }
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
          stmt_util::contains_call(*s, {"tl.store", "tl.atomic_add"}) || index_names.contains(targets[0]->str_field("id")))
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
    bool stores = false, mixes = false, accumulates = false;
    for (const PyNode* s : p.rest) {
      stores |= stmt_util::contains_call(*s, {"tl.store", "tl.atomic_add", "tl.atomic_max", "tl.atomic_min",
                                              "tl.atomic_xchg", "tl.atomic_cas"});
      mixes |= stmt_util::contains_call(
          *s, {"tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.reduce", "tl.xor_sum", "tl.cumsum",
               "tl.cumprod", "tl.associative_scan", "tl.dot", "tl.trans", "tl.permute", "tl.reshape", "tl.view",
               "tl.sort", "tl.flip", "tl.gather", "tl.histogram"});
      accumulates |= accumulation::of(*s).has_value();
      if (s->type == "Expr" && !stmt_util::contains_call(*s, {"tl.store"}))
        return refuse(fmt::format("line {}: an expression statement other than tl.store in a pass", s->line));
    }
    // A pass before the last that reassigns the row or the index (`x = x * x`) writes a fresh
    // name instead, so that the later passes still read what was loaded.
    if (k + 1 != passes.size())
      for (const PyNode* s : p.rest)
        for (const auto& w : PyModule::names_written(*s))
          if (shared.contains(w)) {
            if (s->type != "Assign")
              return refuse(fmt::format("line {}: the pass updates {} in place, which the later passes read as loaded",
                                        s->line, w));
            p.renames.emplace(w, std::string());
          }
    if (stores && k + 1 != passes.size())
      return refuse(fmt::format("the pass on line {} stores before a later pass reads the row", p.loop->line));
    if (!stores && !mixes && !accumulates)
      return refuse(fmt::format("the pass on line {} neither reduces, accumulates nor stores", p.loop->line));
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
      if (mixes || accumulates)
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

  // A renamed name must not be read where the reassigned value was meant: after its pass, only a
  // later pass that loads into that name (and so reads the row) may read it.
  std::set<std::string> fresh_names;
  for (size_t k = 0; k < passes.size(); ++k)
    for (auto& [name, fresh] : passes[k].renames) {
      for (const PyNode* use : view.uses(name)) {
        if (use->line <= passes[k].loop->end_line) continue;
        bool reloaded = false;
        for (size_t j = k + 1; j < passes.size(); ++j)
          reloaded |= PyModule::inside(*use, *passes[j].loop) && passes[j].load_name == name;
        if (!reloaded)
          return refuse(fmt::format("line {}: reads {}, which the pass on line {} reassigns", use->line, name,
                                    passes[k].loop->line));
      }
      fresh = view.fresh_name(fmt::format("{}{}", name, k + 1));
      while (fresh_names.contains(fresh)) fresh += "_";
      fresh_names.insert(fresh);
    }
  // Between the passes, nothing may change what the later passes read as loaded.
  for (const PyNode* s : ctx.function->children_in("body")) {
    if (s->line <= p0.loop->end_line || s->line >= passes.back().loop->line) continue;
    if (std::any_of(passes.begin(), passes.end(), [&](const Pass& p) { return p.loop == s; })) continue;
    for (const auto& w : PyModule::names_written(*s))
      if (shared.contains(w))
        return refuse(fmt::format("line {}: assigns {} between the passes, which the later passes read as loaded",
                                  s->line, w));
  }

  // 5. A larger block must stay in bounds: every access in the passes is masked by `index < n`,
  // and BLOCK and the loop variable appear nowhere else (BLOCK may size an accumulator).
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
  // `acc = tl.zeros([BLOCK], ...)` at the top level: the accumulator keeps the block's shape.
  auto sizes_accumulator = [&](const PyNode& use) {
    const PyNode* stmt = PyModule::enclosing_statement(use);
    if (!stmt || stmt->parent != ctx.function || stmt->type != "Assign") return false;
    auto targets = stmt->children_in("targets");
    const PyNode* value = stmt->child("value");
    if (targets.size() != 1 || targets[0]->type != "Name" || !accumulators.contains(targets[0]->str_field("id")) ||
        !value || !accumulation::is_block(*value) || !argument(*value, 0))
      return false;
    return PyModule::inside(use, *argument(*value, 0));
  };
  for (const PyNode* use : view.uses(block_name))
    if (!in_passes(*use) && !sizes_accumulator(*use))
      return refuse(fmt::format("line {}: {} is used outside the passes", use->line, block_name));
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
    if (!init || !accumulation::is_identity(ctx, *init->child("value"), a.kind)) return nullptr;
    // A block accumulator that adds a reduction would become a scalar.
    if (accumulation::is_block(*init->child("value")) &&
        stmt_util::contains_call(*a.value, {"tl.sum", "tl.max", "tl.min", "tl.reduce", "tl.xor_sum"}))
      return nullptr;
    return init;
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
    if (k != 0 && p.load_name != load_name) keep.push_back(p.load_stmt);  // becomes the alias
    keep.insert(keep.end(), p.rest.begin(), p.rest.end());
    // Which accumulations assign their name once in this pass?
    std::map<std::string, int> assigned;
    for (const PyNode* s : p.rest)
      for (const auto& w : PyModule::names_written(*s)) ++assigned[w];
    std::set<std::string> renamed;  // the names this pass has reassigned so far
    std::string text;
    for (const PyNode* s : keep) {
      if (k != 0 && s == p.load_stmt) {
        text += to + p.load_name + " = " + load_name + "\n";
        continue;
      }
      std::vector<TextEdit> subs;
      if (auto a = accumulation::of(*s); a && assigned[a->acc] == 1)
        if (const PyNode* init = init_of(*a, *p.loop)) {
          // `acc += R`, `acc = tl.maximum(acc, R)` -> `acc = R`
          edits.push_back(stmt_util::replace_lines(init->line, init->end_line, ""));
          subs.push_back({s->line, s->col, a->value->line, a->value->col, a->acc + " = "});
          if (std::pair(a->value->end_line, a->value->end_col) != std::pair(s->end_line, s->end_col))
            subs.push_back({a->value->end_line, a->value->end_col, s->end_line, s->end_col, ""});
        }
      auto inside_sub = [&](const PyNode& e) {
        for (const auto& sub : subs)
          if (std::tie(sub.line, sub.col) <= std::tie(e.line, e.col) &&
              std::tie(e.end_line, e.end_col) <= std::tie(sub.end_line, sub.end_col))
            return true;
        return false;
      };
      // start + X -> X; any other read of start -> 0.
      std::vector<const PyNode*> covered;
      PyModule::walk(*s, [&](const PyNode& e) {
        if (e.type != "BinOp" || e.fields.value("op", "") != "Add" || inside_sub(e)) return;
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
      bool clash = false;
      PyModule::walk(*s, [&](const PyNode& e) {
        if (e.type != "Name") return;
        const std::string& id = e.str_field("id");
        bool reads_renamed = e.str_field("ctx") == "Load" && renamed.contains(id);
        bool writes_renamed = e.str_field("ctx") == "Store" && p.renames.contains(id) && s != p.load_stmt;
        if (reads_renamed || writes_renamed) {
          if (inside_sub(e)) clash = true;
          else subs.push_back(TextEdit::replace(e, p.renames.at(id)));
        } else if (id == var && std::find(covered.begin(), covered.end(), &e) == covered.end() && !inside_sub(e)) {
          subs.push_back(TextEdit::replace(e, "0"));
        }
      });
      if (clash) return refuse(fmt::format("line {}: a reassigned name inside `{} + ...`", s->line, var));
      if (s != p.load_stmt)
        for (const auto& w : PyModule::names_written(*s))
          if (p.renames.contains(w)) renamed.insert(w);
      text += TDX_TRY(stmt_util::render_lines(ctx, s->line, s->end_line, subs, from, to));
    }
    edits.push_back(stmt_util::replace_lines(p.loop->line, p.loop->end_line, text));
  }
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_single_pass_reduction_recipe() { return std::make_unique<SinglePassReductionRecipe>(); }

}  // namespace tdx
