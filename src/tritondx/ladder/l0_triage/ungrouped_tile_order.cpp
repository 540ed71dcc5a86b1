// l0-ungrouped-tile-order: a 2D-tiled dot kernel maps program ids to tiles row by row.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class UngroupedTileOrderRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-ungrouped-tile-order"; }
  std::string_view description() const override {
    return "A kernel that computes 2D output tiles with a tl.dot K-loop maps its program id to the tile "
           "row by row (pid_m = pid // num_pid_n, pid_n = pid % num_pid_n) or takes the tile from a 2D "
           "grid (pid_m = tl.program_id(0), pid_n = tl.program_id(1)), and the grid has at least "
           "min_waves waves of programs. Programs run roughly in id order, so the programs resident "
           "at once cover one or two rows of tiles: they share their A row panel but each reads a "
           "different B column panel, and the B panels are evicted from L2 before the next row of "
           "tiles needs them again. Grouping GROUP_M rows of tiles (Triton's matmul tutorial: "
           "group_id = pid // (GROUP_M * num_pid_n), ...) makes a wave cover a GROUP_M-row square, "
           "which reads far fewer distinct panels from HBM. The rule fires when a wave of sm_count "
           "programs reads at least min_panel_ratio times the panels it would read grouped.";
  }
  nlohmann::json options() const override {
    return {{"min_waves", min_waves_}, {"group", group_}, {"min_panel_ratio", min_panel_ratio_}};
  }
  void configure(const nlohmann::json& o) override {
    min_waves_ = o.value("min_waves", min_waves_);
    group_ = o.value("group", group_);
    min_panel_ratio_ = o.value("min_panel_ratio", min_panel_ratio_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_waves_ = 2.0;
  long long group_ = 8;
  double min_panel_ratio_ = 1.25;
};

// `tl.program_id(axis)` (through a name), or -1.
int program_axis(const KernelView& view, const PyNode& e) {
  const PyNode* n = &e;
  if (n->type == "Name") {
    const Definition* d = view.definition(*n);
    if (!d || !d->value || d->stmt->type != "Assign") return -1;
    n = d->value;
  }
  if (n->type != "Call" || normalize_triton_name(call_name(*n)) != "tl.program_id") return -1;
  const PyNode* axis = argument(*n, 0) ? argument(*n, 0) : keyword(*n, "axis");
  auto v = axis ? int_constant(*axis) : std::nullopt;
  return v ? static_cast<int>(*v) : -1;
}

// The constexpr a tile index is multiplied by (`pid_m * BLOCK_M`), or "".
std::string tile_block(const KernelView& view, const std::string& index) {
  std::string block;
  for (const PyNode* use : view.uses(index)) {
    const PyNode* p = use->parent;
    if (!p || p->type != "BinOp" || p->fields.value("op", "") != "Mult") continue;
    const PyNode* other = p->child(use->field == "left" ? "right" : "left");
    if (other && other->type == "Name" && view.signature(other->str_field("id")) == "constexpr")
      block = other->str_field("id");
  }
  return block;
}

// The upper bound a mask puts on offsets built from `index` (`offs_m[:, None] < M` -> "M"), or "".
std::string tile_extent(const KernelView& view, const std::string& index) {
  for (const auto& access : masked_accesses(view)) {
    if (!access.bound.upper || !access.bound.index || !access.bound.limit) continue;
    bool from_index = view.flows_from(*access.bound.index, [&](const PyNode& n) {
      return n.type == "Name" && n.str_field("id") == index;
    });
    if (from_index) return view.text(*access.bound.limit);
  }
  return {};
}

struct TileMapping {
  const PyNode* slow = nullptr;  // statement assigning the row-of-tiles index
  const PyNode* fast = nullptr;  // statement assigning the column index
  std::string pid, slow_name, fast_name, num_fast;
  bool grid_2d = false;
};

std::optional<TileMapping> find_mapping(const KernelView& view) {
  auto body = view.function().children_in("body");
  auto assigned = [](const PyNode* s) -> std::string {
    auto t = s->children_in("targets");
    return s->type == "Assign" && t.size() == 1 && t[0]->type == "Name" ? t[0]->str_field("id") : std::string();
  };
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    const PyNode* a = body[i];
    const PyNode* b = body[i + 1];
    std::string na = assigned(a), nb = assigned(b);
    if (na.empty() || nb.empty()) continue;
    const PyNode* va = a->child("value");
    const PyNode* vb = b->child("value");
    // pid // X then pid % X (either order).
    if (va->type == "BinOp" && vb->type == "BinOp") {
      std::string oa = va->fields.value("op", ""), ob = vb->fields.value("op", "");
      if (!((oa == "FloorDiv" && ob == "Mod") || (oa == "Mod" && ob == "FloorDiv"))) continue;
      if (view.text(*va->child("left")) != view.text(*vb->child("left")) ||
          view.text(*va->child("right")) != view.text(*vb->child("right")))
        continue;
      if (va->child("left")->type != "Name" || program_axis(view, *va->child("left")) != 0) continue;
      TileMapping m;
      bool a_slow = oa == "FloorDiv";
      m.slow = a_slow ? a : b;
      m.fast = a_slow ? b : a;
      m.slow_name = a_slow ? na : nb;
      m.fast_name = a_slow ? nb : na;
      m.pid = view.text(*va->child("left"));
      m.num_fast = view.text(*va->child("right"));
      return m;
    }
    // pid_m = tl.program_id(0); pid_n = tl.program_id(1) on a 2D grid.
    int xa = program_axis(view, *va), xb = program_axis(view, *vb);
    if (va->type == "Call" && vb->type == "Call" && ((xa == 0 && xb == 1) || (xa == 1 && xb == 0))) {
      TileMapping m;
      m.grid_2d = true;
      m.fast = xa == 0 ? a : b;  // axis 0 varies fastest in launch order
      m.slow = xa == 0 ? b : a;
      m.fast_name = xa == 0 ? na : nb;
      m.slow_name = xa == 0 ? nb : na;
      return m;
    }
  }
  return std::nullopt;
}

void UngroupedTileOrderRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx) || !ctx.target || ctx.target->sm_count <= 0) return;
  KernelView view(ctx);
  bool dot_loop = false;
  for (const PyNode* d : view.calls({"tl.dot"})) dot_loop |= PyModule::enclosing_loop(*d) != nullptr;
  if (!dot_loop) return;
  auto m = find_mapping(view);
  if (!m) return;
  std::string slow_block = tile_block(view, m->slow_name), fast_block = tile_block(view, m->fast_name);
  if (slow_block.empty() || fast_block.empty()) return;  // not both tile indices

  long long programs = ctx.launch->programs();
  long long sms = ctx.target->sm_count;
  if (double(programs) < min_waves_ * double(sms)) return;
  long long num_fast = 0, num_slow = 0;
  if (m->grid_2d) {
    if (ctx.launch->grid.size() < 2) return;
    num_fast = ctx.launch->grid[0], num_slow = ctx.launch->grid[1];
  } else {
    const PyNode* x = m->fast->child("value")->child("right");
    auto v = view.value(*x);
    if (!v || *v <= 0) return;
    num_fast = *v, num_slow = (programs + num_fast - 1) / num_fast;
  }
  if (num_fast < 2 || num_slow < 2) return;

  // Distinct row and column panels a wave of `sms` consecutive programs reads.
  long long wave = std::min(programs, sms);
  long long rows = (wave + num_fast - 1) / num_fast, cols = std::min(wave, num_fast);
  long long g = std::min(group_, num_slow);
  long long grouped_rows = g, grouped_cols = std::min(num_fast, (wave + g - 1) / g);
  if (double(rows + cols) < min_panel_ratio_ * double(grouped_rows + grouped_cols)) return;

  Finding f = finding_at(view, std::min(m->slow->line, m->fast->line));
  f.symptom = fmt::format("{} tiles ({} x {}) are visited row by row: a wave of {} programs reads {} panels, "
                          "{} with groups of {} rows",
                          programs, num_slow, num_fast, wave, rows + cols, grouped_rows + grouped_cols, g);
  f.evidence.push_back(view.source(m->slow->line, m->grid_2d ? "the tile row comes from the second grid axis"
                                                              : "the tile row is pid // tiles per row"));
  f.evidence.push_back(view.source(m->fast->line, m->grid_2d ? "the tile column is the first grid axis, which "
                                                               "varies fastest in launch order"
                                                             : "the tile column is pid % tiles per row"));
  std::string grid;
  for (long long v : ctx.launch->grid) grid += (grid.empty() ? "" : ", ") + std::to_string(v);
  f.evidence.push_back(view.launch_evidence(fmt::format("grid ({}): {} x {} tiles, {} SMs; a wave covers {} row(s) "
                                                        "x {} column(s) of tiles",
                                                        grid, num_slow, num_fast, sms, rows, cols)));
  f.cause = fmt::format("consecutive programs share one row panel and each needs its own column panel, so a wave "
                        "reads {} panels; GROUP_M={} rows per group make it {} x {} = {} panels, and the column "
                        "panels are reused by the {} rows of the group while they are still in L2",
                        rows + cols, g, grouped_rows, grouped_cols, grouped_rows + grouped_cols, g);
  f.confidence = 0.55;
  std::string extent = tile_extent(view, m->slow_name);
  f.proposals.push_back({"group-program-order",
                         fmt::format("group the program order by {} rows of tiles (GROUP_SIZE_M)", g),
                         {{"pid", m->pid},
                          {"slow", m->slow_name},
                          {"fast", m->fast_name},
                          {"num_fast", m->num_fast},
                          {"slow_block", slow_block},
                          {"slow_extent", extent},
                          {"num_slow", num_slow},
                          {"group", g},
                          {"grid", m->grid_2d ? "2d" : "1d"}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_ungrouped_tile_order_rule() { return std::make_unique<UngroupedTileOrderRule>(); }

}  // namespace tdx
