// l0-grid-order-rereads: the programs of a 2D grid that gather from the same rows of a tensor run a
// whole grid row apart, so a tensor larger than L2 is read from DRAM once per program, not once.
#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/program_ids.h"

namespace tdx {
namespace {

using namespace l0;

class GridOrderRereadsRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-grid-order-rereads"; }
  std::string_view description() const override {
    return "A 2D grid whose first axis (tl.program_id(0)) picks the rows of a tensor a program reads and "
           "whose second axis picks only which gathered indices it reads in them (the address depends on "
           "tl.program_id(1) only through a loaded index, FlagGems' index_select): every program of one "
           "grid column reads the same rows. Programs launch with axis 0 fastest, so those programs are a "
           "whole grid column apart, and when the tensor exceeds the L2 its rows are evicted in between: "
           "each row is read from DRAM up to once per program of the second axis. Grouping the first "
           "axis (group-program-order on the 2D grid) runs the programs that share rows together.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

// The top-level statement `name = <program id of axis>`, or nullptr.
const PyNode* program_id_statement(const KernelView& view, const PyNode& function, int axis) {
  for (const PyNode* s : function.children_in("body")) {
    if (s->type != "Assign" || s->children_in("targets").size() != 1 || s->children_in("targets")[0]->type != "Name")
      continue;
    if (const PyNode* v = s->child("value"); v && program_id_read(view, *v).axis == axis) return s;
  }
  return nullptr;
}

bool is_load(const PyNode& n) { return n.type == "Call" && normalize_triton_name(call_name(n)) == "tl.load"; }

void GridOrderRereadsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx) || !ctx.target || ctx.target->l2_bytes <= 0) return;
  const auto& grid = ctx.launch->grid;
  if (grid.size() < 2 || grid[0] < 2 || grid[1] < 2 || (grid.size() > 2 && grid[2] != 1)) return;
  KernelView view(ctx);
  const PyNode* row_stmt = program_id_statement(view, *ctx.function, 0);
  const PyNode* col_stmt = program_id_statement(view, *ctx.function, 1);
  if (!row_stmt || !col_stmt) return;
  const std::string rows = row_stmt->children_in("targets")[0]->str_field("id");
  const std::string cols = col_stmt->children_in("targets")[0]->str_field("id");
  auto reads = [&](const PyNode& e, const std::string& name) {
    return view.flows_from(e, [&](const PyNode& n) { return n.type == "Name" && n.str_field("id") == name; });
  };
  for (const PyNode* load : view.loads()) {
    const PyNode* ptr = KernelView::pointer_arg(*load);
    if (!ptr || !reads(*ptr, rows)) continue;
    // The second axis reaches the address only through a loaded index.
    bool direct = false;
    const PyNode* gather = nullptr;
    view.visit_flow(*ptr, [&](const PyNode& n) {
      if (is_load(n)) {
        if (!gather && KernelView::pointer_arg(n) && reads(*KernelView::pointer_arg(n), cols)) gather = &n;
        return false;
      }
      direct |= n.type == "Name" && n.str_field("id") == cols;
      return true;
    });
    if (direct || !gather) continue;
    const std::string root = view.root_pointer(*ptr);
    const auto arg = root.empty() ? nlohmann::json() : ctx.launch->args.value(root, nlohmann::json());
    const long long bytes = arg.is_object() ? arg.value("bytes", 0LL) : 0;
    if (bytes <= ctx.target->l2_bytes) continue;

    Finding f = finding_at(view, load->line);
    f.symptom = fmt::format("the {} programs that read the same rows of {} run {} programs apart", grid[1], root,
                            grid[0]);
    f.evidence.push_back(view.source(row_stmt->line, fmt::format("{}: the rows of {} this program reads", rows, root)));
    f.evidence.push_back(view.source(col_stmt->line, fmt::format("{}: only which indices are gathered", cols)));
    f.evidence.push_back(view.source(gather->line, fmt::format("the indices, loaded at offsets of {}", cols)));
    f.evidence.push_back(view.source(load->line, fmt::format("the gather from {}: its address reads {} directly and "
                                                             "{} only through the loaded indices",
                                                             root, rows, cols)));
    f.evidence.push_back(view.launch_evidence(fmt::format("grid ({}, {}): axis 0 varies fastest; {} is {:.1f} MiB, "
                                                          "the L2 {:.1f} MiB",
                                                          grid[0], grid[1], root, bytes / 1048576.0,
                                                          ctx.target->l2_bytes / 1048576.0)));
    f.cause = fmt::format(
        "every program with the same {0} reads the same rows of {1} ({2} programs along axis 1), but the launch "
        "order runs axis 0 fastest, so they are {3} programs apart; {1} ({4:.1f} MiB) does not fit the {5:.1f} MiB "
        "L2, so a row is evicted before the next program that needs it runs, and it is read from DRAM up to {2} "
        "times instead of once",
        rows, root, grid[1], grid[0], bytes / 1048576.0, ctx.target->l2_bytes / 1048576.0);
    f.confidence = 0.6;
    f.proposals.push_back({"group-program-order",
                           fmt::format("group the rows of axis 0 (GROUP_SIZE_M of them walked across all of axis 1), "
                                       "so the {} programs that read a row run together while it is in L2",
                                       grid[1]),
                           {{"grid", "2d"}, {"slow", rows}, {"fast", cols}, {"group", 8}}});
    sink.report(std::move(f));
    return;  // one finding per kernel: the order is one property of the grid
  }
}

}  // namespace

std::unique_ptr<Rule> make_grid_order_rereads_rule() { return std::make_unique<GridOrderRereadsRule>(); }

}  // namespace tdx
