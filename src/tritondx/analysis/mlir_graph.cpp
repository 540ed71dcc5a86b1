#include "tritondx/analysis/mlir_graph.h"

#include <algorithm>
#include <set>

#include "tritondx/ir/source_map.h"

namespace tdx {

std::string_view value_base(std::string_view value) { return value.substr(0, value.find('#')); }

ValueUses::ValueUses(const MlirModule& module) {
  for (const auto& op : module.ops)
    for (const auto& v : op.operands) {
      auto& list = users_[std::string(value_base(v))];
      if (list.empty() || list.back() != op.index) list.push_back(op.index);
    }
}

const std::vector<int>& ValueUses::users(std::string_view value) const {
  static const std::vector<int> kNone;
  auto it = users_.find(std::string(value_base(value)));
  return it == users_.end() ? kNone : it->second;
}

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

// Reads `%name` at text[i]; returns its end (i if none).
size_t read_value(std::string_view text, size_t i) {
  if (i >= text.size() || text[i] != '%') return i;
  size_t n = i + 1;
  while (n < text.size() && is_name_char(text[n])) ++n;
  if (n < text.size() && text[n] == '#') {
    ++n;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  }
  return n;
}

}  // namespace

std::optional<ForLoop> for_loop(const MlirModule& module, int op) {
  if (op < 0 || op >= static_cast<int>(module.ops.size()) || module.ops[op].name != "scf.for") return std::nullopt;
  const MlirOp& f = module.ops[op];
  ForLoop loop;
  loop.op = op;
  std::string_view t = f.text;
  size_t pos = t.find("scf.for ");
  if (pos == std::string_view::npos) return std::nullopt;
  pos += 8;
  size_t end = read_value(t, pos);
  loop.induction = std::string(t.substr(pos, end - pos));
  if (size_t ia = t.find("iter_args("); ia != std::string_view::npos) {
    size_t i = ia + 10;
    while (i < t.size() && t[i] != ')') {
      while (i < t.size() && (t[i] == ' ' || t[i] == ',')) ++i;
      size_t e = read_value(t, i);
      if (e == i) break;
      std::string arg(t.substr(i, e - i));
      i = e;
      while (i < t.size() && (t[i] == ' ' || t[i] == '=')) ++i;
      size_t e2 = read_value(t, i);
      if (e2 == i) break;
      loop.iter_args.push_back(std::move(arg));
      loop.inits.emplace_back(t.substr(i, e2 - i));
      i = e2;
    }
  }
  for (int k = op + 1; k < static_cast<int>(module.ops.size()) && is_nested_in(module, k, op); ++k)
    if (module.ops[k].parent == op && module.ops[k].name == "scf.yield") loop.yield = k;
  return loop;
}

bool is_nested_in(const MlirModule& module, int op, int ancestor) {
  if (op < 0 || ancestor < 0) return false;
  for (int p = module.ops[op].parent; p >= 0; p = module.ops[p].parent)
    if (p == ancestor) return true;
  return false;
}

int enclosing_for(const MlirModule& module, int op) {
  if (op < 0) return -1;
  for (int p = module.ops[op].parent; p >= 0; p = module.ops[p].parent)
    if (module.ops[p].name == "scf.for") return p;
  return -1;
}

std::vector<int> for_loops(const MlirModule& module) {
  std::vector<int> out;
  for (const auto& op : module.ops)
    if (op.name == "scf.for") out.push_back(op.index);
  return out;
}

bool has_inner_loop(const MlirModule& module, int for_op) {
  for (int k = for_op + 1; k < static_cast<int>(module.ops.size()) && is_nested_in(module, k, for_op); ++k)
    if (module.ops[k].parent == for_op && (module.ops[k].name == "scf.for" || module.ops[k].name == "scf.while"))
      return true;
  return false;
}

std::vector<int> loop_body(const MlirModule& module, int for_op) {
  std::vector<int> out;
  for (int k = for_op + 1; k < static_cast<int>(module.ops.size()) && is_nested_in(module, k, for_op); ++k)
    if (module.ops[k].parent == for_op) out.push_back(k);
  return out;
}

int source_line(const MlirOp& op, const std::string& source_file) {
  if (op.loc.known() && same_source_file(op.loc.file, source_file)) return op.loc.line;
  if (op.call_site.known() && same_source_file(op.call_site.file, source_file)) return op.call_site.line;
  return 0;
}

int loop_rank(const MlirModule& module, int for_op) {
  int rank = 0;
  for (int k = 0; k < for_op; ++k)
    if (module.ops[k].name == "scf.for" && module.ops[k].loc == module.ops[for_op].loc) ++rank;
  return rank;
}

int find_loop(const MlirModule& module, const SourceLoc& loc, int rank) {
  int seen = 0;
  for (const auto& op : module.ops)
    if (op.name == "scf.for" && op.loc == loc && seen++ == rank) return op.index;
  return -1;
}

const MlirOp* loaded_source(const MlirModule& module, std::string_view value) {
  std::vector<std::string_view> pending{value_base(value)};
  std::set<int> seen;
  for (size_t next = 0; next < pending.size(); ++next) {
    const MlirOp* op = module.defining_op(pending[next]);
    if (!op || !seen.insert(op->index).second) continue;
    if (op->name == "tt.load" || op->name == "ttg.local_load" || op->name == "tt.descriptor_load") return op;
    for (const auto& operand : op->operands) pending.push_back(value_base(operand));
  }
  return nullptr;
}

std::string_view mask_operand(const MlirOp& op) {
  size_t at = op.name == "tt.load" ? 1 : (op.name == "tt.store" || op.name == "ttg.async_copy_global_to_local") ? 2 : 0;
  if (at == 0 || op.operands.size() <= at) return {};
  return op.operands[at];
}

std::string op_quote(const MlirOp& op) {
  std::string_view t = op.text;
  if (auto pos = t.rfind(" loc("); pos != std::string_view::npos) t = t.substr(0, pos);
  size_t b = t.find_first_not_of(' ');
  return b == std::string_view::npos ? std::string() : std::string(t.substr(b));
}

int element_type_bits(std::string_view element) {
  MlirType t;
  t.element = std::string(element);
  return t.element_bits();
}

}  // namespace tdx
