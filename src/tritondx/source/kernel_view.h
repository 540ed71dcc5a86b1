// What L0 rules ask about one kernel's source, answered from its Python AST and the captured
// launch: which statement defines a name, the integer range an expression takes for the
// task's launch, the shape of a tensor expression, the pointer parameter an address is based
// on, and evidence links quoting source lines. Built once per check(); no compile, no GPU.
//
// The analysis is deliberately simple and conservative: a name's definition is the last
// assignment that ends before the use (source order, branches ignored); anything it cannot
// evaluate is std::nullopt, and rules stay silent on nullopt.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/ladder/context.h"

namespace tdx::l0 {

// Closed integer interval [lo, hi].
struct Range {
  long long lo = 0;
  long long hi = 0;
  bool is_point() const { return lo == hi; }
};

// One definition of a local name: `x = v`, `x += v`, `x: T = v`, `for x in ...`.
struct Definition {
  const PyNode* stmt = nullptr;   // Assign / AugAssign / AnnAssign / For
  const PyNode* value = nullptr;  // the assigned expression (for For: the iterator call), may be null
  int line = 0, col = 0;          // where the name becomes visible (statement end, For target end)
};

// How deep the value, range, shape and root inference of an expression goes (the flow visit: 4x).
inline constexpr int kMaxExpressionDepth = 48;

bool is_pow2(long long v);
long long next_pow2(long long v);   // smallest power of two >= v (v >= 1)
long long pow2_floor(long long v);  // largest power of two <= v (v >= 1)
// The divisibility an integer argument has but the JIT cannot show: the largest power of two up
// to 8 dividing v when v is not a multiple of 16 (which the JIT specializes) and is even; else 0.
long long unspecialized_divisor(long long v);
// Bytes of a Triton element type name ("fp32" -> 4, "bf16" -> 2, "i64" -> 8); 0 if unknown.
int element_bytes(std::string_view type);

class KernelView {
 public:
  explicit KernelView(const KernelContext& ctx);

  const KernelContext& ctx() const { return *ctx_; }
  const PyNode& function() const { return *ctx_->function; }
  const LaunchInfo& launch() const { return *ctx_->launch; }
  std::string text(const PyNode& node) const;  // the node's source text
  // The positional arguments of a `range(...)`/`tl.range(...)` iter (keywords left out); empty
  // for any other iter.
  static std::vector<const PyNode*> range_arguments(const PyNode& iter);
  // What a `for` loop's iter runs over, as text: `range`/`tl.range`'s positional arguments
  // (keywords such as num_stages= do not change the iterations), else the iter's text.
  std::string range_key(const PyNode& iter) const;
  // The source text without blanks, tabs and newlines: two spellings of one expression compare equal.
  std::string squashed_text(const PyNode& node) const;

  // --- parameters -----------------------------------------------------------------------
  bool is_param(std::string_view name) const;
  // Is `name` a parameter, assigned, or read in the kernel (taken for a new name)?
  bool binds(std::string_view name) const;
  // `base`, or `base_2`, `base_3`, ... : the first the kernel does not bind.
  std::string fresh_name(const std::string& base) const;
  const KernelParam* param_info(std::string_view name) const;  // from the task's kernel list
  std::string signature(std::string_view name) const;  // "*fp32", "i32", "constexpr", "" if unknown
  bool is_pointer_param(std::string_view name) const { return signature(name).starts_with("*"); }
  // "fp32" for a "*fp32" parameter, "" otherwise.
  std::string pointee_type(std::string_view name) const;
  bool has_divisibility_16(std::string_view name) const;  // the launch specialized it as % 16 == 0

  // --- names ----------------------------------------------------------------------------
  // The definition of the Name node `use` (the last one ending before it), or nullptr when
  // the name is a parameter or a global.
  const Definition* definition(const PyNode& use) const;
  // The last definition of `name` ending at or before (line, col).
  const Definition* definition_at(std::string_view name, int line, int col) const;
  const std::vector<Definition>& definitions(std::string_view name) const;
  // Every Name node in the function that reads `name`.
  std::vector<const PyNode*> uses(std::string_view name) const;

  // --- values ---------------------------------------------------------------------------
  // Integer range of an expression for the captured launch (program ids over the grid, loop
  // variables over their trip, parameters at their launch value, tl.arange over its span).
  std::optional<Range> range(const PyNode& expr) const;
  std::optional<long long> value(const PyNode& expr) const;  // range() when it is a point
  // The range of a scalar expression of program ids, by evaluating it at every program of the
  // captured grid (up to 2^16 of them): exact where range()'s intervals lose the mapping.
  std::optional<Range> range_over_programs(const PyNode& expr) const;
  // The values a counted loop's target takes over all programs, its bounds evaluated per program
  // (`for start in range(pid * CHUNK, min(pid * CHUNK + CHUNK, n), BLOCK)`).
  std::optional<Range> loop_range_over_programs(const PyNode& for_stmt) const;
  // Range of the values a For loop's target takes; nullopt unless a counted range(...).
  std::optional<Range> loop_range(const PyNode& for_stmt) const;
  std::optional<long long> trip_count(const PyNode& for_stmt) const;
  // Shape of a tensor expression ([] for scalars), nullopt when unknown.
  std::optional<std::vector<long long>> shape(const PyNode& expr) const;
  // The pointer parameter an address expression is based on ("" when not found).
  std::string root_pointer(const PyNode& expr) const;
  // Calls `f` on every node of `expr` and, through name definitions, of the expressions it
  // reads (each definition once). `f` returns false to stop descending below a node.
  void visit_flow(const PyNode& expr, const std::function<bool(const PyNode&)>& f) const;
  // Does `expr` (through name definitions) contain a node satisfying `pred`?
  bool flows_from(const PyNode& expr, const std::function<bool(const PyNode&)>& pred) const;

  // --- calls and memory ops -------------------------------------------------------------
  std::vector<const PyNode*> calls(std::initializer_list<std::string_view> names) const;
  std::vector<const PyNode*> loads() const { return calls({"tl.load"}); }
  std::vector<const PyNode*> stores() const { return calls({"tl.store"}); }
  // Every call that writes memory: tl.store and the tl.atomic_* updates, in source order.
  std::vector<const PyNode*> writes() const {
    return calls({"tl.store", "tl.atomic_add", "tl.atomic_max", "tl.atomic_min", "tl.atomic_xchg", "tl.atomic_cas",
                  "tl.atomic_and", "tl.atomic_or", "tl.atomic_xor"});
  }
  // Arguments of tl.load(pointer, mask, other) / tl.store(pointer, value, mask), by position or keyword.
  static const PyNode* pointer_arg(const PyNode& memop);
  static const PyNode* mask_arg(const PyNode& memop);
  static const PyNode* other_arg(const PyNode& memop);
  // Elements one memory op moves per program (product of its shape), nullopt if unknown.
  std::optional<long long> elements(const PyNode& memop) const;

  // --- evidence -------------------------------------------------------------------------
  EvidenceLink source(int line, std::string note) const { return ctx_->source_evidence(line, std::move(note)); }
  // The `kernel[grid](...)` call in the task (nullptr if the launch is indirect).
  const PyNode* launch_call() const;
  // Quotes the launch call line (or the kernel's def line) with a note of captured values.
  EvidenceLink launch_evidence(std::string note) const;
  int launch_line() const;  // launch call line, else the kernel's def line
  // "BLOCK=256, n_cols=3000": the launch values of the parameters `expr` reads (through names).
  std::string launch_values(const PyNode& expr) const;

 private:
  // What one program contributes to over_programs: a range, nothing (a loop it does not enter),
  // or unknown.
  struct ProgramValues {
    bool known = false;
    std::optional<Range> range;
  };
  std::optional<Range> over_programs(const std::function<ProgramValues()>& per_program) const;
  std::optional<Range> range_impl(const PyNode& expr, int depth) const;
  std::optional<std::vector<long long>> shape_impl(const PyNode& expr, int depth) const;
  std::string root_impl(const PyNode& expr, int depth) const;
  std::optional<long long> global_constant(std::string_view name) const;

  const KernelContext* ctx_;
  const KernelInfo* kernel_info_ = nullptr;
  std::map<std::string, std::vector<Definition>, std::less<>> defs_;
  std::map<std::string, std::vector<const PyNode*>, std::less<>> uses_;
  mutable std::map<const PyNode*, std::optional<Range>> programs_cache_;  // range_over_programs
  // Set while range_over_programs evaluates at one program: tl.program_id is that program's id.
  mutable const std::array<long long, 3>* pinned_pid_ = nullptr;
};

}  // namespace tdx::l0
