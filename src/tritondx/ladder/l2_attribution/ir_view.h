// IrView: what every L2 rule asks of a compiled kernel, answered once: the instructions a
// source line became in PTX and SASS, enclosing loops, layouts, remarks, scalar values from
// the launch, and evidence links quoting each of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tritondx/ir/instruction_class.h"
#include "tritondx/ladder/context.h"
#include "tritondx/core/text.h"

namespace tdx {
class ScalarEvaluator;
}

namespace tdx::l2 {

// Bit width of a scalar element type name ("f16" -> 16, "f8E4M3FN" -> 8, "i1" -> 8); 0 if unknown.
int scalar_bits(std::string_view element);
// "[1, 4]"
std::string format_dims(const std::vector<int64_t>& v);
// The op text without its trailing loc(...), trimmed.
std::string quote_op(const MlirOp& op);
std::string trim(std::string_view s);

// scf.for block arguments: the induction variable and each iter_arg with its init value.
struct ForArguments {
  std::string induction;                                   // "%k"
  std::vector<std::pair<std::string, std::string>> iter;  // {"%acc_3", "%cst"}
};
ForArguments for_arguments(const MlirOp& for_op);

class IrView {
 public:
  explicit IrView(const KernelContext& ctx);
  ~IrView();
  IrView(const IrView&) = delete;
  IrView& operator=(const IrView&) = delete;

  // True when the program, its TTGIR and the source map are there (every L2 rule needs them).
  bool ready() const;
  const KernelContext& ctx() const { return ctx_; }
  const Program& program() const { return *ctx_.program; }
  const MlirModule& ttgir() const { return *ctx_.program->ttgir; }
  const MlirModule* ttir() const { return ctx_.program->ttir ? &*ctx_.program->ttir : nullptr; }
  const PtxModule* ptx() const { return ctx_.program->ptx ? &*ctx_.program->ptx : nullptr; }
  const SassModule* sass() const { return ctx_.program->sass ? &*ctx_.program->sass : nullptr; }

  int num_warps() const;
  int threads_per_cta() const { return num_warps() * 32; }
  // The kernel's `def` line (the tt.func location), or the task's def line.
  int kernel_line() const;

  // Instructions a source line of the task file became (in text order).
  std::vector<const PtxInstruction*> ptx_at(int line) const;
  std::vector<const PtxInstruction*> ptx_at(int line, InstructionClass c) const;
  std::vector<const SassInstruction*> sass_at(int line) const;
  std::vector<const SassInstruction*> sass_at(int line, InstructionClass c) const;

  // The nearest enclosing scf.for of an op (index into ttgir().ops), -1 if none.
  int enclosing_loop(const MlirOp& op) const;
  int enclosing_loop(const MlirModule& m, const MlirOp& op) const;
  const MlirOp* def(std::string_view value) const { return ttgir().defining_op(strip_result(value)); }
  // Ops whose operands use `value` or any result of the op defining it (`%x` matches `%x#1`).
  std::vector<const MlirOp*> users(std::string_view value) const;
  static std::string strip_result(std::string_view value);  // "%x#1" -> "%x"

  const Layout* layout(const MlirType& type) const { return ttgir().layout(type.encoding); }
  // A blocked layout, or the blocked parent of a slice or a dot operand; null otherwise.
  const Layout* blocked(const MlirType& type) const;

  // The remark of the compile at a source line whose message contains `text`.
  const Remark* remark_at(int line, std::string_view text) const;
  // Scalar value of an SSA name, from constants and the launch's argument values.
  std::optional<int64_t> scalar(std::string_view ssa) const;
  std::optional<int64_t> trip_count(const MlirOp& for_op) const;

  // A finding located at a source line of the task.
  Finding finding_at(int line) const;
  // Evidence links.
  EvidenceLink source(int line, std::string note = {}) const { return ctx_.source_evidence(line, std::move(note)); }
  EvidenceLink op(const MlirOp& op, std::string note = {}, Stage stage = Stage::Ttgir) const {
    return ctx_.op_evidence(stage, op, std::move(note));
  }
  EvidenceLink ptx(const PtxInstruction& i, std::string note = {}) const;
  EvidenceLink sass(const SassInstruction& i, std::string note = {}) const;
  // Quotes a layout's definition (`#blocked = #ttg.blocked<{...}>`) for the op that uses it.
  EvidenceLink layout_definition(const Layout& l, const MlirOp& user, std::string note = {}) const;
  EvidenceLink remark(const Remark& r, std::string note = {}) const;
  // A line of the ptxas resource report (registers, spills), quoted as reported.
  EvidenceLink resources(std::string quote, std::string note = {}) const;

 private:
  ScalarEvaluator& evaluator() const;
  const KernelContext& ctx_;
  mutable std::unique_ptr<ScalarEvaluator> scalars_;
  mutable std::unique_ptr<std::unordered_map<std::string, std::vector<int>>> users_;
};

}  // namespace tdx::l2
