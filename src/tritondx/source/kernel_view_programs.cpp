// KernelView::range_over_programs: the range of a scalar expression of the program ids, found by
// evaluating it at every program of the captured grid. Interval arithmetic loses the program
// mappings real kernels use: the grouped ordering's `first_pid_m + (pid % group_size_m)` with
// `group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)` is always below num_pid_m, but its
// intervals only say "up to the last group's first row plus GROUP_SIZE_M".
#include "tritondx/source/kernel_view.h"

#include "tritondx/source/program_ids.h"

#include <array>
#include <functional>

namespace tdx::l0 {

namespace {

// More programs than this are not enumerated (the answer stays unknown).
constexpr long long kMaxPrograms = 1 << 16;

struct ProgramEvaluator {
  const KernelView& view;
  std::array<long long, 3> grid{1, 1, 1};
  std::array<long long, 3> pid{0, 0, 0};

  std::optional<long long> axis_of(const PyNode& call) const {
    const PyNode* axis_node = argument(call, 0) ? argument(call, 0) : keyword(call, "axis");
    auto axis = axis_node ? int_constant(*axis_node) : std::optional<long long>(0);
    if (!axis || *axis < 0 || *axis > 2) return std::nullopt;
    return axis;
  }

  std::optional<long long> eval(const PyNode& e, int depth) const {
    if (depth > kMaxExpressionDepth) return std::nullopt;
    auto sub = [&](const PyNode* n) { return n ? eval(*n, depth + 1) : std::nullopt; };
    if (e.type == "Constant") return view.value(e);
    if (e.type == "Name") {
      const Definition* d = view.definition(e);
      if (!d) return view.value(e);  // a parameter at its launch value, or a module constant
      if (d->stmt->type != "Assign" && d->stmt->type != "AnnAssign") return std::nullopt;
      return sub(d->value);
    }
    if (e.type == "UnaryOp" && e.fields.value("op", "") == "USub") {
      auto v = sub(e.child("operand"));
      return v ? std::optional<long long>(-*v) : std::nullopt;
    }
    if (e.type == "BinOp") {
      auto a = sub(e.child("left")), b = sub(e.child("right"));
      if (!a || !b) return std::nullopt;
      const std::string op = e.fields.value("op", "");
      long long out = 0;
      if (op == "Add") return __builtin_add_overflow(*a, *b, &out) ? std::nullopt : std::optional<long long>(out);
      if (op == "Sub") return __builtin_sub_overflow(*a, *b, &out) ? std::nullopt : std::optional<long long>(out);
      if (op == "Mult") return __builtin_mul_overflow(*a, *b, &out) ? std::nullopt : std::optional<long long>(out);
      // Triton's integer // and % truncate like C, Python's floor: they agree on these only.
      if ((op == "FloorDiv" || op == "Mod") && *a >= 0 && *b > 0) return op == "Mod" ? *a % *b : *a / *b;
      if ((op == "LShift" || op == "RShift") && *a >= 0 && *b >= 0 && *b < 62) return op == "LShift" ? *a << *b : *a >> *b;
      return std::nullopt;
    }
    if (e.type != "Call") return std::nullopt;
    const std::string name = call_name(e);
    if (normalize_triton_name(name) == "tl.program_id" || is_program_id_helper(name)) {
      auto axis = axis_of(e);
      return axis ? std::optional<long long>(pid[*axis]) : std::nullopt;
    }
    if (name == "tl.num_programs") {
      auto axis = axis_of(e);
      return axis ? std::optional<long long>(grid[*axis]) : std::nullopt;
    }
    const PyNode* a0 = argument(e, 0);
    if (name == "tl.cdiv" || name == "triton.cdiv") {
      auto a = sub(a0), b = sub(argument(e, 1));
      if (!a || !b || *a < 0 || *b <= 0) return std::nullopt;
      return (*a + *b - 1) / *b;
    }
    if (name == "min" || name == "max" || name == "tl.minimum" || name == "tl.maximum") {
      auto a = sub(a0), b = sub(argument(e, 1));
      if (!a || !b) return std::nullopt;
      return (name == "min" || name == "tl.minimum") ? std::min(*a, *b) : std::max(*a, *b);
    }
    if (name == "tl.multiple_of" || name == "tl.max_contiguous" || name == "tl.cast" || name == "int") return sub(a0);
    if (const PyNode* f = e.child("func"); f && f->type == "Attribute" && f->str_field("attr") == "to")
      return sub(f->child("value"));
    return std::nullopt;
  }
};

// What one program contributes: a range, nothing (a loop it does not enter), or unknown.
struct ProgramValues {
  bool known = false;
  std::optional<Range> range;
};

// Calls `per_program(ev)` at every program of the captured grid; the union of what they give
// (nullopt as soon as one is unknown, when none gives a range, or for a grid too large).
std::optional<Range> over_programs(const KernelView& view, const KernelContext& ctx,
                                   const std::function<ProgramValues(const ProgramEvaluator&)>& per_program) {
  if (!ctx.launch || ctx.launch->grid.empty()) return std::nullopt;
  ProgramEvaluator ev{view};
  long long programs = 1;
  for (size_t i = 0; i < ctx.launch->grid.size() && i < 3; ++i) {
    ev.grid[i] = std::max<long long>(ctx.launch->grid[i], 1);
    programs *= ev.grid[i];
  }
  if (programs > kMaxPrograms) return std::nullopt;
  std::optional<Range> out;
  for (ev.pid[2] = 0; ev.pid[2] < ev.grid[2]; ++ev.pid[2])
    for (ev.pid[1] = 0; ev.pid[1] < ev.grid[1]; ++ev.pid[1])
      for (ev.pid[0] = 0; ev.pid[0] < ev.grid[0]; ++ev.pid[0]) {
        ProgramValues v = per_program(ev);
        if (!v.known) return std::nullopt;
        if (v.range) out = out ? Range{std::min(out->lo, v.range->lo), std::max(out->hi, v.range->hi)} : *v.range;
      }
  return out;
}

}  // namespace

std::optional<Range> KernelView::range_over_programs(const PyNode& expr) const {
  if (auto hit = programs_cache_.find(&expr); hit != programs_cache_.end()) return hit->second;
  auto r = over_programs(*this, *ctx_, [&](const ProgramEvaluator& ev) {
    auto v = ev.eval(expr, 0);
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
  return over_programs(*this, *ctx_, [&](const ProgramEvaluator& ev) {
    std::optional<long long> start = 0, end, step = 1;
    if (args.size() == 1) {
      end = ev.eval(*args[0], 0);
    } else {
      start = ev.eval(*args[0], 0);
      end = ev.eval(*args[1], 0);
      if (args.size() == 3) step = ev.eval(*args[2], 0);
    }
    if (!start || !end || !step || *step <= 0) return ProgramValues{};
    if (*end <= *start) return ProgramValues{true, std::nullopt};  // this program does not enter the loop
    // Blocks `start + tl.arange(0, step)` stay aligned to the step only from an aligned start.
    if (*start % *step != 0) return ProgramValues{};
    return ProgramValues{true, Range{*start, *start + ((*end - *start - 1) / *step) * *step}};
  });
}

}  // namespace tdx::l0
