#include "tritondx/ladder/context.h"

#include <cctype>

namespace tdx {

std::string KernelContext::kernel_name() const {
  if (launch) return launch->kernel;
  if (program) return program->kernel;
  return function ? function->str_field("name") : std::string();
}

EvidenceLink KernelContext::source_evidence(int line, std::string note) const {
  EvidenceLink e;
  e.stage = Stage::Source;
  e.loc = SourceLoc{task ? task->path : std::string(), line, 0};
  std::string_view text = source_line(line);
  size_t b = text.find_first_not_of(' ');
  e.quote = b == std::string_view::npos ? std::string() : std::string(text.substr(b));
  e.note = std::move(note);
  return e;
}

EvidenceLink KernelContext::op_evidence(Stage stage, const MlirOp& op, std::string note) const {
  EvidenceLink e;
  e.stage = stage;
  e.loc = op.loc;
  e.ir_line = op.line;
  std::string_view t = op.text;
  if (auto pos = t.rfind(" loc("); pos != std::string_view::npos) t = t.substr(0, pos);
  size_t b = t.find_first_not_of(' ');
  e.quote = b == std::string_view::npos ? std::string() : std::string(t.substr(b));
  e.note = std::move(note);
  return e;
}

}  // namespace tdx
