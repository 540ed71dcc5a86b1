#include "tritondx/ladder/l2_attribution/ir_view.h"

#include <fmt/format.h>

#include <unordered_map>

#include "tritondx/analysis/scalar_eval.h"

namespace tdx::l2 {

int scalar_bits(std::string_view e) {
  if (e.starts_with("!tt.ptr")) return 64;
  if (e == "f16" || e == "bf16") return 16;
  if (e == "f32" || e == "tf32") return 32;
  if (e == "f64" || e == "index") return 64;
  if (e.starts_with("f8") || e == "i8" || e == "ui8" || e == "si8" || e == "i1") return 8;
  if (e.starts_with("ui") || e.starts_with("si")) e.remove_prefix(1);
  if (e.size() >= 2 && e[0] == 'i') {
    int v = 0;
    for (char c : e.substr(1)) {
      if (c < '0' || c > '9') return 0;
      v = v * 10 + (c - '0');
    }
    return v;
  }
  return 0;
}

std::string format_dims(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string quote_op(const MlirOp& op) {
  std::string_view t = op.text;
  if (auto pos = t.rfind(" loc("); pos != std::string_view::npos) t = t.substr(0, pos);
  return trim_copy(t);
}

ForArguments for_arguments(const MlirOp& for_op) {
  ForArguments out;
  std::string_view t = for_op.text;
  size_t f = t.find("scf.for ");
  if (f == std::string_view::npos) return out;
  std::string_view rest = t.substr(f + 8);
  size_t eq = rest.find(" = ");
  if (eq != std::string_view::npos) out.induction = trim_copy(rest.substr(0, eq));
  size_t ia = rest.find("iter_args(");
  if (ia == std::string_view::npos) return out;
  size_t i = ia + 10;
  int depth = 0;
  size_t start = i;
  auto take = [&](std::string_view item) {
    size_t e = item.find(" = ");
    if (e == std::string_view::npos) return;
    out.iter.emplace_back(trim_copy(item.substr(0, e)), trim_copy(item.substr(e + 3)));
  };
  for (; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == '>' || c == ']' || c == '}') {
      if (depth == 0) {
        take(rest.substr(start, i - start));
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      take(rest.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

IrView::IrView(const KernelContext& ctx) : ctx_(ctx) {}
IrView::~IrView() = default;

bool IrView::ready() const { return ctx_.program && ctx_.program->ttgir && ctx_.source_map; }

int IrView::num_warps() const {
  if (ctx_.program && ctx_.program->ttgir)
    if (auto w = ctx_.program->ttgir->num_warps()) return static_cast<int>(*w);
  if (ctx_.program) return ctx_.program->resources.num_warps;
  return 4;
}

int IrView::kernel_line() const {
  const auto& m = ttgir();
  for (const auto& f : m.functions)
    if (f.op >= 0 && m.ops[static_cast<size_t>(f.op)].loc.known()) return m.ops[static_cast<size_t>(f.op)].loc.line;
  if (ctx_.task)
    if (const KernelInfo* k = ctx_.task->kernel(ctx_.kernel_name())) return k->def_line;
  return 0;
}

std::vector<const PtxInstruction*> IrView::ptx_at(int line) const {
  std::vector<const PtxInstruction*> out;
  if (!ptx() || !ctx_.source_map) return out;
  for (int i : ctx_.source_map->at(Stage::Ptx, line)) out.push_back(&ptx()->instructions[static_cast<size_t>(i)]);
  return out;
}

std::vector<const PtxInstruction*> IrView::ptx_at(int line, InstructionClass c) const {
  std::vector<const PtxInstruction*> out;
  for (const auto* i : ptx_at(line))
    if (classify(*i) == c) out.push_back(i);
  return out;
}

std::vector<const SassInstruction*> IrView::sass_at(int line) const {
  std::vector<const SassInstruction*> out;
  if (!sass() || !ctx_.source_map) return out;
  for (int i : ctx_.source_map->at(Stage::Sass, line)) out.push_back(&sass()->instructions[static_cast<size_t>(i)]);
  return out;
}

std::vector<const SassInstruction*> IrView::sass_at(int line, InstructionClass c) const {
  std::vector<const SassInstruction*> out;
  for (const auto* i : sass_at(line))
    if (classify(*i) == c) out.push_back(i);
  return out;
}

int IrView::enclosing_loop(const MlirModule& m, const MlirOp& op) const {
  for (int p = op.parent; p >= 0; p = m.ops[static_cast<size_t>(p)].parent)
    if (m.ops[static_cast<size_t>(p)].name == "scf.for") return p;
  return -1;
}

int IrView::enclosing_loop(const MlirOp& op) const { return enclosing_loop(ttgir(), op); }

std::string IrView::strip_result(std::string_view value) {
  return std::string(value.substr(0, value.find('#')));
}

std::vector<const MlirOp*> IrView::users(std::string_view value) const {
  if (!users_) {
    users_ = std::make_unique<std::unordered_map<std::string, std::vector<int>>>();
    for (const auto& o : ttgir().ops)
      for (const auto& v : o.operands) (*users_)[strip_result(v)].push_back(o.index);
  }
  std::vector<const MlirOp*> out;
  auto add = [&](const std::string& key) {
    if (auto it = users_->find(key); it != users_->end())
      for (int i : it->second) out.push_back(&ttgir().ops[static_cast<size_t>(i)]);
  };
  add(strip_result(value));
  return out;
}

const Layout* IrView::blocked(const MlirType& type) const {
  const Layout* l = layout(type);
  for (int guard = 0; l && guard < 4; ++guard) {
    if (l->kind == LayoutKind::Blocked) return l;
    if (l->kind != LayoutKind::Slice && l->kind != LayoutKind::DotOperand) return nullptr;
    l = ttgir().layout(l->parent);
  }
  return nullptr;
}

const Remark* IrView::remark_at(int line, std::string_view text) const {
  for (const auto& r : program().remarks)
    if (r.loc.line == line && r.message.find(text) != std::string::npos) return &r;
  return nullptr;
}

ScalarEvaluator& IrView::evaluator() const {
  if (!scalars_) {
    const LaunchInfo* launch = ctx_.launch;
    scalars_ = std::make_unique<ScalarEvaluator>(ttgir(), [launch](std::string_view name) -> std::optional<int64_t> {
      if (!launch) return std::nullopt;
      auto v = launch->int_arg(name);
      return v ? std::optional<int64_t>(*v) : std::nullopt;
    });
  }
  return *scalars_;
}

std::optional<int64_t> IrView::scalar(std::string_view ssa) const { return evaluator().value(ssa); }

std::optional<int64_t> IrView::trip_count(const MlirOp& for_op) const { return evaluator().trip_count(for_op); }

Finding IrView::finding_at(int line) const {
  Finding f;
  f.loc = SourceLoc{ctx_.task ? ctx_.task->path : std::string(), line, 0};
  return f;
}

EvidenceLink IrView::ptx(const PtxInstruction& i, std::string note) const {
  EvidenceLink e;
  e.stage = Stage::Ptx;
  e.loc = i.loc;
  e.ir_line = i.line;
  e.quote = trim_copy(i.text);
  e.note = std::move(note);
  return e;
}

EvidenceLink IrView::sass(const SassInstruction& i, std::string note) const {
  EvidenceLink e;
  e.stage = Stage::Sass;
  e.loc = i.loc;
  e.ir_line = i.line;
  e.quote = trim_copy(i.text);
  e.note = std::move(note);
  return e;
}

EvidenceLink IrView::layout_definition(const Layout& l, const MlirOp& user, std::string note) const {
  EvidenceLink e;
  e.stage = Stage::Ttgir;
  e.loc = user.loc;
  e.quote = l.alias.empty() ? l.text : l.alias + " = " + l.text;
  e.note = std::move(note);
  return e;
}

EvidenceLink IrView::remark(const Remark& r, std::string note) const {
  EvidenceLink e;
  e.stage = Stage::Remark;
  e.loc = r.loc;
  e.quote = fmt::format("{}:{}:{}: {}: {}", r.loc.file.substr(r.loc.file.rfind('/') + 1), r.loc.line, r.loc.col,
                        r.severity, r.message);
  e.note = std::move(note);
  return e;
}

EvidenceLink IrView::resources(std::string quote, std::string note) const {
  EvidenceLink e;
  e.stage = Stage::Sass;
  e.loc = SourceLoc{ctx_.task ? ctx_.task->path : std::string(), kernel_line(), 0};
  e.quote = std::move(quote);
  e.note = std::move(note);
  return e;
}

}  // namespace tdx::l2
