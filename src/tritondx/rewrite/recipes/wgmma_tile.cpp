// wgmma-tile: resizes the tile of a tl.dot that Triton lowers to mma.sync instead of Hopper's wgmma
// so every MMAv3 precondition on its shape holds (BLOCK_M a multiple of 64, BLOCK_N of 8, BLOCK_K
// at least 256/bits, num_warps a multiple of 4), the grid following the new tile.
// The constexprs sizing the dot are read from the kernel (the proposal's params are hints); M and N
// change through grow-tile (block_size.cpp) or set_tile, K and num_warps here. See the recipe's doc.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tritondx/core/check.h"
#include "tritondx/rewrite/recipes/grid_rewriter.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/source/kernel_view.h"

namespace tdx {
namespace {

using l0::KernelView;

enum Dim { kM = 0, kN = 1, kK = 2 };
constexpr const char* kDimName[] = {"M", "N", "K"};

// The dot as the compiler saw it (0 where unknown).
struct DotShape {
  long long dims[3] = {0, 0, 0};
  int bits = 0;  // operand element bits
};

DotShape ir_shape(const KernelContext& ctx, int line) {
  DotShape s;
  if (!ctx.program) return s;
  for (const auto* module : {&ctx.program->ttgir, &ctx.program->ttir}) {
    if (!*module) continue;
    for (const auto& op : (*module)->ops) {
      if (op.name != "tt.dot" || op.loc.line != line || op.result_types.empty()) continue;
      if (const auto& r = op.result_types[0].shape; r.size() == 2) s.dims[kM] = r[0], s.dims[kN] = r[1];
      if (!op.operand_types.empty()) {
        if (const auto& a = op.operand_types[0].shape; a.size() == 2) s.dims[kK] = a[1];
        s.bits = op.operand_types[0].element_bits();
      }
      return s;
    }
  }
  return s;
}

// The dimension of a broadcast `x[:, None]` (0) / `x[None, :]` (1), or -1.
int broadcast_dim(const PyNode& subscript) {
  const PyNode* slice = subscript.child("slice");
  if (!slice || slice->type != "Tuple") return -1;
  auto elts = slice->children_in("elts");
  if (elts.size() != 2) return -1;
  auto is_none = [](const PyNode* e) {  // the bridge leaves out None fields
    const auto& f = e->fields;
    return e->type == "Constant" && (!f.is_object() || !f.contains("value") || f["value"].is_null());
  };
  if (elts[0]->type == "Slice" && is_none(elts[1])) return 0;
  if (is_none(elts[0]) && elts[1]->type == "Slice") return 1;
  return -1;
}

// Is `n` a tl.arange sized by the name `name`?
bool arange_sized_by(const PyNode& n, const std::string& name) {
  if (n.type != "Call" || call_name(n) != "tl.arange") return false;
  const PyNode* size = argument(n, 1);
  return size && size->type == "Name" && size->str_field("id") == name;
}

// The sizes of the tl.arange blocks an operand broadcasts along its rows (x[:, None]) and its
// columns (x[None, :]), through its loads and pointers; "" for a size that is not a name. A
// transposed operand (tl.trans, tl.permute, .T) tells nothing.
void operand_sizes(const KernelView& view, const PyNode& operand, std::set<std::string>& rows,
                   std::set<std::string>& cols) {
  bool transposed = view.flows_from(operand, [](const PyNode& n) {
    std::string c = n.type == "Call" ? call_name(n) : "";
    return c == "tl.trans" || c == "tl.permute" || c.ends_with(".trans") || c.ends_with(".permute") ||
           (n.type == "Attribute" && n.str_field("attr") == "T");
  });
  if (transposed) return;
  std::set<std::string>* sets[2] = {&rows, &cols};
  view.visit_flow(operand, [&](const PyNode& n) {
    int dim = n.type == "Subscript" ? broadcast_dim(n) : -1;
    if (dim < 0 || !n.child("value")) return true;
    view.visit_flow(*n.child("value"), [&](const PyNode& a) {
      if (a.type != "Call" || call_name(a) != "tl.arange") return true;
      const PyNode* size = argument(a, 1);
      sets[dim]->insert(size && size->type == "Name" ? size->str_field("id") : "");
      return false;
    });
    return false;
  });
}

// The sizes of the accumulator's tl.zeros((M, N)) / tl.full((M, N), ...): the accumulator is the
// dot's `acc` argument, the target of `acc += tl.dot(a, b)`, or the other term of `acc + tl.dot(a, b)`.
void accumulator_sizes(const KernelView& view, const PyNode& dot, std::set<std::string>& rows,
                       std::set<std::string>& cols) {
  const PyNode* acc = argument(dot, 2) ? argument(dot, 2) : keyword(dot, "acc");
  const PyNode* p = dot.parent;
  if (!acc && p && p->type == "AugAssign" && p->str_field("op") == "Add") acc = p->child("target");
  if (!acc && p && p->type == "BinOp" && p->str_field("op") == "Add")
    acc = p->child("left") == &dot ? p->child("right") : p->child("left");
  if (!acc || acc->type != "Name") return;
  for (const auto& d : view.definitions(acc->str_field("id"))) {
    if (!d.value) continue;
    view.visit_flow(*d.value, [&](const PyNode& n) {
      std::string c = n.type == "Call" ? call_name(n) : "";
      if (c != "tl.zeros" && c != "tl.full") return true;
      const PyNode* shape = argument(n, 0) ? argument(n, 0) : keyword(n, "shape");
      auto elts = shape && (shape->type == "Tuple" || shape->type == "List") ? shape->children_in("elts")
                                                                            : std::vector<const PyNode*>{};
      if (elts.size() == 2)
        for (int i = 0; i < 2; ++i) (i ? cols : rows).insert(elts[i]->type == "Name" ? elts[i]->str_field("id") : "");
      return false;
    });
  }
}

// The loop around the dot and the name it steps by (range(lo, hi, NAME)) or counts blocks of
// (range(tl.cdiv(hi, NAME)), range((hi + NAME - 1) // NAME)), with hi.
struct KLoop { const PyNode* loop = nullptr; std::string name; const PyNode* extent = nullptr; };

KLoop k_loop(const PyNode& dot) {
  KLoop out;
  out.loop = PyModule::enclosing_loop(dot);
  const PyNode* it = out.loop && out.loop->type == "For" ? out.loop->child("iter") : nullptr;
  std::string c = it && it->type == "Call" ? call_name(*it) : "";
  if (c != "range" && c != "tl.range" && c != "tl.static_range") return out;
  const PyNode* stop = argument(*it, 1) ? argument(*it, 1) : argument(*it, 0);
  const PyNode* step = argument(*it, 2);
  auto set = [&](const PyNode* name, const PyNode* extent) {
    if (name && name->type == "Name") out.name = name->str_field("id"), out.extent = extent;
  };
  if (step) {
    set(step, stop);
  } else if (stop && stop->type == "Call" && call_name(*stop).ends_with("cdiv")) {
    set(argument(*stop, 1), argument(*stop, 0));
  } else if (stop && stop->type == "BinOp" && stop->str_field("op") == "FloorDiv" && stop->child("left")) {
    const PyNode* l = stop->child("left");
    set(stop->child("right"), l->type == "BinOp" && l->str_field("op") == "Add" ? l->child("left") : l);
  }
  return out;
}

// Does a tl.load / tl.store index with a tl.arange sized by `name` without a mask (for loads
// along K: without a mask and an `other`, the lanes past the data would enter the dot)?
bool unguarded_access(const KernelView& view, const std::string& name, bool need_other) {
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* ptr = KernelView::pointer_arg(*op);
    bool load = call_name(*op) == "tl.load";
    if (!ptr || (KernelView::mask_arg(*op) && (!need_other || !load || KernelView::other_arg(*op)))) continue;
    if (view.flows_from(*ptr, [&](const PyNode& n) { return arange_sized_by(n, name); })) return true;
  }
  return false;
}

// The node holding constexpr `name`'s launch value `from`: the literal argument, or the literal
// a launch-local variable passed for it is assigned.
Expected<const PyNode*> launch_value(const KernelContext& ctx, const launch_util::LaunchSite& site,
                                     const std::string& name, long long from) {
  const PyNode* arg = launch_util::passed_argument(ctx, *site.call, name);
  if (!arg) return fail(Stage::Rewrite, fmt::format("the launch call does not pass {}", name), site.call->line);
  if (int_constant(*arg) == from) return arg;
  if (arg->type == "Name")
    if (const PyNode* def = launch_util::single_assignment(*site.enclosing, arg->str_field("id")))
      if (const PyNode* v = def->child("value"); v && int_constant(*v) == from) return v;
  return fail(Stage::Rewrite, fmt::format("the launch computes {} as `{}`; retuning it needs that computation changed",
                                          name, recipe_util::text(ctx, *arg)), arg->line);
}

// Growing the K block from `from` to `to`: the loop around the dot must step by it (or the dot
// covers K in one block), and the lanes past K must enter the dot as zeros unless K is a whole
// number of new blocks.
Expected<void> check_k_growth(const KernelView& view, const KLoop& loop, const std::string& name, long long from,
                              long long to, int line) {
  if (loop.loop && loop.name != name)
    return fail(Stage::Rewrite, fmt::format("the loop around the dot (line {}) does not step by {}: a new {} would "
                                            "not change its trip", loop.loop->line, name, name), line);
  const PyNode* literal = nullptr;
  if (loop.loop)
    PyModule::walk(*loop.loop, [&](const PyNode& n) {
      if (!literal && n.type == "Constant" && int_constant(n) == from) literal = &n;
    });
  if (literal)
    return fail(Stage::Rewrite, fmt::format("the K loop uses the literal {} at line {}, which would not follow {}",
                                            from, literal->line, name), literal->line);
  auto extent = loop.extent ? view.value(*loop.extent) : std::nullopt;
  if (extent && *extent % to == 0) return {};
  if (unguarded_access(view, name, true))
    return fail(Stage::Rewrite, fmt::format("K is not known to be a multiple of {} = {} and a load along K is not "
                                            "masked with an `other`: the lanes past K would enter the dot", name, to),
                line);
  return {};
}

// M and N set here when grow-tile would refuse only because a launch variable holding another of
// the dot's blocks (`BLOCK_K = 32` next to `BLOCK_M = 32`) looks to it like a use of the old
// value, or would edit one factor of a product grid for a `square` block sizing both M and N:
// the same launch-value and grid edits (GridRewriter), with the dot's own blocks (`own`, their
// value nodes) exempt. Other constexprs passed at the launch (even-shape flags testing the old
// block) are grow-tile's to follow: refused.
Expected<std::vector<TextEdit>> set_tile(const KernelContext& ctx, const KernelView& view,
                                         const launch_util::LaunchSite& site, const std::set<std::string>& blocks,
                                         const std::vector<block_grid::BlockChange>& changes,
                                         const std::set<const PyNode*>& own, bool square, int line) {
  for (const PyNode* kw : site.call->children_in("keywords"))
    if (const KernelParam* p = view.param_info(kw->str_field("arg")); p && p->is_constexpr && !blocks.count(p->name))
      return fail(Stage::Rewrite, fmt::format("the launch also passes the constexpr {}, which may test the old "
                                              "tile", p->name), kw->line);
  const PyNode* grid = launch_util::grid_expression(site);
  std::string meta;
  if (grid && grid->type == "Lambda") {
    if (const PyNode* args = grid->child("args"); args && args->child("args", 0))
      meta = args->child("args", 0)->str_field("arg");
    grid = grid->child("body");
  }
  auto dims = grid && (grid->type == "Tuple" || grid->type == "List") ? grid->children_in("elts")
                                                                      : std::vector<const PyNode*>{};
  if (dims.empty()) return fail(Stage::Rewrite, "the grid is not a tuple the recipe can read", site.call->line);
  std::vector<TextEdit> edits;
  std::set<const PyNode*> edited, exempt(own.begin(), own.end()), followed;
  for (const auto& c : changes) {
    const PyNode* node = TDX_TRY(launch_value(ctx, site, c.name, c.from));
    const PyNode* arg = launch_util::passed_argument(ctx, *site.call, c.name);
    std::string var = node != arg ? arg->str_field("id") : "";
    if (edited.insert(node).second) edits.push_back(TextEdit::replace(*node, std::to_string(c.to)));
    for (int axis : launch_util::scaled_axes(view, c.name)) {
      if (axis < 0 || axis >= static_cast<int>(std::min(dims.size(), ctx.launch->grid.size())))
        return fail(Stage::Rewrite, fmt::format("no grid dimension {} to follow {}", axis, c.name), site.call->line);
      block_grid::GridRewriter g{ctx,   *site.enclosing, c,    ctx.launch->grid[static_cast<size_t>(axis)], var, meta,
                                 edits, edited,          line, site.call, &exempt};
      TDX_TRY(g.rewrite(*dims[static_cast<size_t>(axis)], 0));
      if (square && g.in_product) {  // the factor counting the other dimension's blocks
        block_grid::GridRewriter g2{ctx,   *site.enclosing, c,    g.programs, var,       meta,
                                    edits, edited,          line, site.call,  &exempt};
        TDX_TRY(g2.rewrite(*dims[static_cast<size_t>(axis)], 0));
      }
      followed.insert(dims[static_cast<size_t>(axis)]);
      if (!g.exact() && unguarded_access(view, c.name, false))
        return fail(Stage::Rewrite, fmt::format("the new grid may not be a whole number of blocks of {} = {} and the "
                                                "kernel has unmasked accesses along it", c.name, c.to), line);
    }
  }
  // Any other use of an old value in the launch (a buffer of cdiv(n, OLD) partials) may be tied to it.
  for (const auto& c : site.call->children)
    if (c.field == "args" || c.field == "keywords") exempt.insert(c.field == "args" ? &c : c.child("value"));
  for (const PyNode* d : dims)
    if (!followed.count(d)) PyModule::walk(*d, [&](const PyNode& n) { exempt.insert(&n); });
  for (const auto& c : changes) {
    const PyNode* other = launch_util::other_use_of_value(
        site, c.from, [&](const PyNode& n) { return edited.count(&n) || exempt.count(&n); });
    if (other)
      return fail(Stage::Rewrite, fmt::format("the launch also uses {} at line {}: it may depend on {}; not retuned",
                                              c.from, other->line, c.name), other->line);
  }
  return edits;
}

bool same_span(const TextEdit& e, const PyNode& n) {
  TextEdit probe = TextEdit::replace(n, "");
  return e.line == probe.line && e.col == probe.col && e.end_line == probe.end_line && e.end_col == probe.end_col;
}

class WgmmaTileRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "wgmma-tile"; }
  std::string_view description() const override {
    return "Resizes the tile of a tl.dot that Triton lowers to mma.sync instead of Hopper's wgmma so every MMAv3 "
           "precondition on its shape holds: M per CTA a multiple of 64 (BLOCK_M' = max(64, BLOCK_M rounded up "
           "to 64)), N a multiple of 8 (BLOCK_N' = max(64, ...): a tiny N wastes the instruction), K at least "
           "256/bits of the operands, num_warps a multiple of 4 (set to 4). The constexprs sizing the dot are "
           "read from the kernel (the accumulator's tl.zeros((M, N)), the tl.arange blocks the operands "
           "broadcast as x[:, None] / x[None, :], the K loop's step) and checked against the dot's shape in the "
           "IR; they get the new values at the launch call (literal or launch-local variable) and the grid "
           "follows as in grow-tile. Proposed by l3-mma-v3-precondition, l2-dot-not-wgmma and "
           "l3-compiler-remark. Refuses autotuned kernels (the configs decide the tile), a dimension that must "
           "change but is not sized by a constexpr of the launch or spans the data without masks, a K loop "
           "that does not step by the K block, and everything grow-tile refuses.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> WgmmaTileRecipe::edits(const RecipeInput& in) const {
  const KernelContext& ctx = in.ctx;
  const auto& params = in.proposal.params;
  auto hint = [&](const char* key) {  // a string param of the proposal, else ""
    return params.is_object() && params.contains(key) && params[key].is_string() ? params[key].get<std::string>()
                                                                                   : std::string();
  };
  int line = in.finding.loc.line;
  if (!ctx.function || !ctx.launch || !ctx.task) return fail(Stage::Rewrite, "no kernel AST or captured launch", line);
  if (launch_util::refuse_wrapped(ctx, line))
    return fail(Stage::Rewrite, "autotuned kernel (@triton.autotune / @triton.heuristics): its configs decide the "
                                "tile and num_warps, not the launch call", line);
  auto dots = recipe_util::kernel_calls_on_line(ctx, {"tl.dot"}, line);
  if (dots.empty() && params.is_object() && params.contains("line") && params["line"].is_number_integer()) {
    line = params["line"].get<int>();
    dots = recipe_util::kernel_calls_on_line(ctx, {"tl.dot"}, line);
  }
  if (dots.empty())
    return fail(Stage::Rewrite, fmt::format("no tl.dot in the kernel on line {} (a helper's dot is sized by its "
                                            "caller)", line), line);
  if (dots.size() > 1) return fail(Stage::Rewrite, "several tl.dot calls on the finding's line", line);
  const PyNode& dot = *dots.front();
  const PyNode* a = argument(dot, 0) ? argument(dot, 0) : keyword(dot, "input");
  const PyNode* b = argument(dot, 1) ? argument(dot, 1) : keyword(dot, "other");
  if (!a || !b) return fail(Stage::Rewrite, "the tl.dot has no two operands", line);
  KernelView view(ctx);
  const KernelInfo* info = ctx.task->kernel(ctx.kernel_name());

  // Which constexprs size M, N and K: every source that shows one, then those whose launch value
  // is the dot's dimension in the IR.
  std::set<std::string> sizes[3];
  operand_sizes(view, *a, sizes[kM], sizes[kK]);
  operand_sizes(view, *b, sizes[kK], sizes[kN]);
  accumulator_sizes(view, dot, sizes[kM], sizes[kN]);
  KLoop loop = k_loop(dot);
  DotShape shape = ir_shape(ctx, line);
  long long value[3];
  std::string name[3];
  auto is_constexpr = [&](const std::string& n) {
    if (info)
      for (const auto& p : info->params)
        if (p.name == n) return p.is_constexpr;
    return false;
  };
  for (int d = 0; d < 3; ++d) {
    std::set<std::string> found;
    auto consider = [&](const std::string& n) {
      auto v = ctx.launch->int_arg(n);
      if (is_constexpr(n) && v && (!shape.dims[d] || *v == shape.dims[d])) found.insert(n);
    };
    for (const auto& n : sizes[d]) consider(n);
    if (found.empty() && d == kK && !loop.name.empty()) consider(loop.name);  // the loop stepping K blocks
    if (found.empty() && hint("dim") == kDimName[d]) consider(hint("constexpr"));  // the proposal's hint
    if (found.size() > 1)
      return fail(Stage::Rewrite, fmt::format("cannot tell which constexpr sizes the dot's {}: {}", kDimName[d],
                                              fmt::join(found, " or ")), line);
    if (!found.empty()) name[d] = *found.begin();
    value[d] = !name[d].empty() ? *ctx.launch->int_arg(name[d]) : shape.dims[d];
  }
  if (!value[kM] || !value[kN])
    if (auto s = view.shape(dot); s && s->size() == 2) {
      if (!value[kM]) value[kM] = (*s)[0];
      if (!value[kN]) value[kN] = (*s)[1];
    }
  if (!value[kK])
    if (auto s = view.shape(*a); s && s->size() == 2) value[kK] = (*s)[1];
  if (!value[kM] || !value[kN] || !value[kK])
    return fail(Stage::Rewrite, "the dot's shape is unknown (no IR and no static shape of its operands)", line);

  // The operand width: from the IR, else the pointer the first operand is loaded from.
  int bits = shape.bits;
  if (!bits) bits = 8 * l0::element_bytes(view.pointee_type(view.root_pointer(*a)));
  long long k_min = bits ? 256 / bits : 0;
  if (hint("dim") == "K" && params.contains("value") && params["value"].is_number_integer())
    k_min = std::max(k_min, params["value"].get<long long>());
  int warps = ctx.launch->num_warps();

  bool required[3] = {value[kM] % 64 != 0, value[kN] % 8 != 0, value[kK] < k_min};
  if (!required[kM] && !required[kN] && !required[kK] && warps % 4 == 0)
    return fail(Stage::Rewrite,
                fmt::format("the dot's tile already meets every MMAv3 shape precondition (M = {}, N = {}, K = {}, "
                            "num_warps = {}): its shape is not what keeps it off wgmma",
                            value[kM], value[kN], value[kK], warps),
                line);
  long long want[3] = {l0::next_pow2(std::max(64LL, (value[kM] + 63) / 64 * 64)),
                       l0::next_pow2(std::max(64LL, (value[kN] + 7) / 8 * 8)),
                       l0::next_pow2(std::max(value[kK], k_min))};
  std::map<std::string, long long> target;  // one constexpr may size several dimensions
  for (int d = 0; d < 3; ++d) {
    if (want[d] == value[d]) continue;
    if (name[d].empty()) {
      if (!required[d]) continue;
      return fail(Stage::Rewrite, fmt::format("the dot's {} ({}) is not sized by a tl.constexpr parameter of the "
                                              "launch", kDimName[d], value[d]), line);
    }
    // M and N: a tile the grid counts (grow-tile follows it). A dimension no program id steps by
    // is the data's own extent: grown only when a precondition needs it, over masked accesses.
    if (d != kK && launch_util::scaled_axes(view, name[d]).empty()) {
      if (!required[d]) continue;
      if (unguarded_access(view, name[d], false))
        return fail(Stage::Rewrite,
                    fmt::format("{} sizes the dot's {} but no program id steps by it and unmasked accesses index "
                                "with it: a larger {} would read past the data",
                                name[d], kDimName[d], name[d]),
                    line);
    }
    target[name[d]] = std::max(target[name[d]], want[d]);
  }
  auto new_value = [&](int d) {
    auto it = target.find(name[d]);
    return name[d].empty() || it == target.end() ? value[d] : std::max(value[d], it->second);
  };

  // M and N through grow-tile (the launch values, the grid, its mask checks), or set_tile when a
  // launch variable of the dot's other blocks holds an old value or one block sizes both M and N.
  // An optional N growth that is refused is dropped.
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  std::set<std::string> grown, dot_blocks(name, name + 3);
  dot_blocks.erase("");
  auto grow = [&](bool with_n) -> Expected<std::vector<TextEdit>> {
    bool m = new_value(kM) != value[kM], n = with_n && new_value(kN) != value[kN];
    if (!m && !n) return std::vector<TextEdit>{};
    std::string rows = m ? name[kM] : name[kN], cols = n ? name[kN] : rows;
    std::vector<block_grid::BlockChange> changes;
    std::set<const PyNode*> own;  // the launch values of the dot's blocks that stay
    bool mistaken = false;        // one is a launch variable holding an old value
    for (const auto& blk : {rows, cols})
      if (changes.empty() || changes[0].name != blk) changes.push_back({blk, *ctx.launch->int_arg(blk), target[blk]});
    for (const auto& b : dot_blocks) {
      auto v = b == rows || b == cols ? std::nullopt : ctx.launch->int_arg(b);
      auto node = v ? launch_value(ctx, site, b, *v) : Expected<const PyNode*>(nullptr);
      if (!node || !*node) continue;
      own.insert(*node);
      bool variable = *node != launch_util::passed_argument(ctx, *site.call, b);
      for (const auto& c : changes) mistaken |= variable && c.from == *v;
    }
    nlohmann::json p = {{"constexprs", {rows, cols}},
                        {"from", {changes.front().from, changes.back().from}},
                        {"tile", {changes.front().to, changes.back().to}}};
    RewriteProposal tile{"grow-tile", "the dot's tile for wgmma", p};
    bool square = name[kM] == name[kN] && changes.size() == 1;
    auto out = mistaken || square ? set_tile(ctx, view, site, dot_blocks, changes, own, square, line)
                        : make_grow_tile_recipe()->edits(RecipeInput{ctx, in.finding, tile});
    if (out) grown = {rows, cols};
    return out;
  };
  auto grown_edits = grow(true);
  if (!grown_edits && !required[kN] && new_value(kN) != value[kN] && name[kN] != name[kM]) {
    long long n_target = target[name[kN]];
    target.erase(name[kN]);
    if (auto m_only = grow(false)) grown_edits = std::move(m_only);
    else target[name[kN]] = n_target;  // report the first refusal
  }
  if (!grown_edits)
    return fail(Stage::Rewrite,
                fmt::format("resizing the dot's tile to {}x{}: {}", new_value(kM), new_value(kN),
                            grown_edits.error().message),
                grown_edits.error().line);
  std::vector<TextEdit> edits = std::move(*grown_edits);

  // K: set at the launch unless grow-tile already set it (a constexpr or a variable shared with M
  // or N); then whatever value it gets must be safe along K.
  long long k_new = new_value(kK);
  if (!name[kK].empty() && !grown.count(name[kK])) {
    auto node = launch_value(ctx, site, name[kK], value[kK]);
    const TextEdit* shared = nullptr;
    if (node)
      for (const auto& e : edits)
        if (same_span(e, **node)) shared = &e;
    if (shared) {
      k_new = std::stoll(shared->replacement);
    } else if (k_new != value[kK]) {
      if (!node) return std::unexpected(node.error());
      const PyNode* arg = launch_util::passed_argument(ctx, *site.call, name[kK]);
      int reads = 0;  // a launch-local variable read elsewhere (a buffer sized by it) would not follow
      if (arg && arg->type == "Name")
        PyModule::walk(*site.enclosing, [&](const PyNode& n) {
          reads += n.type == "Name" && n.fields.value("ctx", "") == "Load" && n.str_field("id") == arg->str_field("id");
        });
      if (reads > 1)
        return fail(Stage::Rewrite, fmt::format("the launch variable passed as {} is read elsewhere in the launch; "
                                                "not retuned", name[kK]), (*node)->line);
      edits.push_back(TextEdit::replace(**node, std::to_string(k_new)));
    }
  } else if (!name[kK].empty()) {
    k_new = std::max(value[kK], target[name[kK]]);
  }
  if (k_new < k_min)
    return fail(Stage::Rewrite, fmt::format("K = {} would stay below {} (256/{} bits)", k_new, k_min, bits), line);
  if (k_new != value[kK]) TDX_CHECK(check_k_growth(view, loop, name[kK], value[kK], k_new, line));

  if (warps % 4 != 0) {
    for (const PyNode* kw : site.call->children_in("keywords"))
      if (kw->str_field("arg").empty())
        return fail(Stage::Rewrite, "the launch passes **kwargs, which may set num_warps", site.call->line);
    edits.push_back(launch_util::set_keyword(*site.call, "num_warps", "4"));
  }
  if (edits.empty()) return fail(Stage::Rewrite, "nothing to resize on the dot's tile", line);
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_wgmma_tile_recipe() { return std::make_unique<WgmmaTileRecipe>(); }

}  // namespace tdx
