// KernelView::range_over_programs: the range of a scalar expression of the program ids, found by
// evaluating it (range() with the program ids pinned) at every program of the captured grid.
// Interval arithmetic loses the program mappings real kernels use: the grouped ordering's
// `first_pid_m + (pid % group_size_m)` with `group_size_m = min(num_pid_m - first_pid_m,
// GROUP_SIZE_M)` is always below num_pid_m, but its intervals only say "up to the last group's
// first row plus GROUP_SIZE_M".
#include "tritondx/source/kernel_view.h"

#include <array>
#include <functional>

namespace tdx::l0 {

namespace {

// More programs than this are not enumerated (the answer stays unknown).
constexpr long long kMaxPrograms = 1 << 16;

}  // namespace

// Calls `per_program()` with the view's program ids pinned to each program of the captured grid
// in turn; the union of what they give (nullopt as soon as one is unknown, when none gives a
// range, or for a grid too large).
std::optional<Range> KernelView::over_programs(const std::function<ProgramValues()>& per_program) const {
  if (!ctx_->launch || ctx_->launch->grid.empty() || pinned_pid_) return std::nullopt;
  std::array<long long, 3> grid{1, 1, 1}, pid{0, 0, 0};
  long long programs = 1;
  for (size_t i = 0; i < ctx_->launch->grid.size() && i < 3; ++i) {
    grid[i] = std::max<long long>(ctx_->launch->grid[i], 1);
    programs *= grid[i];
  }
  if (programs > kMaxPrograms) return std::nullopt;
  struct Unpin {
    const std::array<long long, 3>*& pinned;
    ~Unpin() { pinned = nullptr; }
  } unpin{pinned_pid_};
  pinned_pid_ = &pid;
  std::optional<Range> out;
  for (pid[2] = 0; pid[2] < grid[2]; ++pid[2])
    for (pid[1] = 0; pid[1] < grid[1]; ++pid[1])
      for (pid[0] = 0; pid[0] < grid[0]; ++pid[0]) {
        ProgramValues v = per_program();
        if (!v.known) return std::nullopt;
        if (v.range) out = out ? Range{std::min(out->lo, v.range->lo), std::max(out->hi, v.range->hi)} : *v.range;
      }
  return out;
}

std::optional<Range> KernelView::range_over_programs(const PyNode& expr) const {
  if (auto hit = programs_cache_.find(&expr); hit != programs_cache_.end()) return hit->second;
  auto r = over_programs([&] {
    auto v = value(expr);
    return v ? ProgramValues{true, Range{*v, *v}} : ProgramValues{};
  });
  programs_cache_[&expr] = r;
  return r;
}

std::optional<Range> KernelView::loop_range_over_programs(const PyNode& for_stmt) const {
  const PyNode* iter = for_stmt.child("iter");
  if (!iter || iter->type != "Call") return std::nullopt;
  const std::string name = call_name(*iter);
  if (name != "range" && name != "tl.range" && name != "tl.static_range") return std::nullopt;
  auto args = iter->children_in("args");
  if (args.empty() || args.size() > 3) return std::nullopt;
  return over_programs([&] {
    std::optional<long long> start = 0, end, step = 1;
    if (args.size() == 1) {
      end = value(*args[0]);
    } else {
      start = value(*args[0]);
      end = value(*args[1]);
      if (args.size() == 3) step = value(*args[2]);
    }
    if (!start || !end || !step || *step <= 0) return ProgramValues{};
    if (*end <= *start) return ProgramValues{true, std::nullopt};  // this program does not enter the loop
    // Blocks `start + tl.arange(0, step)` stay aligned to the step only from an aligned start.
    if (*start % *step != 0) return ProgramValues{};
    return ProgramValues{true, Range{*start, *start + ((*end - *start - 1) / *step) * *step}};
  });
}

}  // namespace tdx::l0
