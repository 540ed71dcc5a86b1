#include "tritondx/source/long_row.h"

#include <fmt/format.h>

#include "tritondx/source/block_index.h"
#include "tritondx/source/retiling.h"

namespace tdx::l0 {

namespace {

std::unexpected<std::string> no(std::string why) { return std::unexpected(std::move(why)); }

// The parameter a mask bounds the row with: a conjunct `offsets < n` (block_index's mask_bound)
// whose offsets flow from the arange. "" when the mask has no such conjunct, "?" when it bounds the
// row by two different names.
std::string mask_extent(const KernelView& view, const PyNode& mask, const PyNode& arange) {
  std::string extent;
  for (const PyNode* conjunct : mask_conjuncts(view, mask)) {
    auto bound = mask_bound(view, *conjunct);
    if (!bound || !bound->upper || bound->inclusive || bound->limit->type != "Name") continue;
    const std::string name = bound->limit->str_field("id");
    if (!view.is_param(name) || !view.flows_from(*bound->index, [&](const PyNode& x) { return &x == &arange; }))
      continue;
    extent = extent.empty() || extent == name ? name : "?";
  }
  return extent;
}

}  // namespace

std::expected<LongRow, std::string> long_row(const KernelView& view) {
  const LaunchInfo& launch = view.launch();
  for (size_t d = 1; d < launch.grid.size(); ++d)
    if (launch.grid[d] > 1)
      return no(fmt::format("the grid already has {} programs on axis {}", launch.grid[d], d));
  if (auto blocker = retiling_blocker(view.function())) return no(describe(*blocker));
  for (const PyNode* c : view.calls({"tl.program_id", "tl.num_programs"})) {
    if (normalize_triton_name(call_name(*c)) == "tl.num_programs")
      return no(fmt::format("line {}: the kernel reads tl.num_programs, which a second grid axis would change", c->line));
    const PyNode* axis = argument(*c, 0);
    if (!axis) axis = keyword(*c, "axis");
    if (!axis || int_constant(*axis) != 0)
      return no(fmt::format("line {}: the kernel reads a program id other than tl.program_id(0)", c->line));
  }
  auto aranges = view.calls({"tl.arange"});
  if (aranges.size() != 1) return no(fmt::format("the kernel has {} tl.arange calls, not one", aranges.size()));
  LongRow row;
  row.arange = aranges.front();
  const PyNode* lo = argument(*row.arange, 0);
  const PyNode* hi = argument(*row.arange, 1);
  if (!lo || !hi || int_constant(*lo) != 0 || hi->type != "Name")
    return no(fmt::format("line {}: the tl.arange is not `tl.arange(0, BLOCK)`", row.arange->line));
  row.block = hi->str_field("id");
  const KernelParam* block = view.param_info(row.block);
  if (!block || !block->is_constexpr)
    return no(fmt::format("line {}: {} is not a constexpr parameter", row.arange->line, row.block));
  // The block only sizes the arange: a kernel that also scales by it (`pid * BLOCK`) already splits
  // its data into blocks, and a row program's block is sized from the row instead.
  for (const PyNode* use : view.uses(row.block))
    if (use != hi)
      return no(fmt::format("line {}: {} is used beyond sizing the tl.arange (the kernel's data is already split "
                            "into blocks)",
                            use->line, row.block));
  auto value = launch.int_arg(row.block);
  if (!value || *value <= 0) return no(fmt::format("the launch gives {} no integer value", row.block));
  row.block_value = *value;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* mask = KernelView::mask_arg(*op);
    if (!mask)
      return no(fmt::format("line {}: an access without a mask; a column block past the row's end would reach past "
                            "the data",
                            op->line));
    const std::string extent = mask_extent(view, *mask, *row.arange);
    if (extent.empty() || extent == "?")
      return no(fmt::format("line {}: the mask does not bound the row's offsets by one parameter (`offsets < n`)",
                            op->line));
    if (!row.extent.empty() && row.extent != extent)
      return no(fmt::format("line {}: the accesses bound the row by {} and by {}", op->line, row.extent, extent));
    row.extent = extent;
  }
  if (row.extent.empty()) return no("the kernel has no load or store");
  row.elements_per_thread = row.block_value / (32LL * std::max(1, launch.num_warps()));
  return row;
}

}  // namespace tdx::l0
