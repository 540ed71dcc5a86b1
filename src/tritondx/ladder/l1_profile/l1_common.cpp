#include "tritondx/ladder/l1_profile/l1_common.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <filesystem>
#include <set>

#include "tritondx/ir/source_map.h"

namespace tdx::l1 {

int kernel_line(const KernelContext& ctx) {
  if (ctx.function && ctx.function->line > 0) return ctx.function->line;
  if (ctx.task)
    if (const KernelInfo* k = ctx.task->kernel(ctx.kernel_name()); k && k->def_line > 0) return k->def_line;
  return 1;
}

Finding finding_at(const KernelContext& ctx, int line) {
  Finding f;
  f.loc = SourceLoc{ctx.task ? ctx.task->path : std::string(), line, 0};
  return f;
}

EvidenceLink profile_evidence(const KernelContext& ctx, int line, std::string quote, std::string note) {
  EvidenceLink e;
  e.stage = Stage::Profile;
  e.loc = SourceLoc{ctx.task ? ctx.task->path : std::string(), line, 0};
  e.quote = std::move(quote);
  e.note = std::move(note);
  return e;
}

EvidenceLink sass_evidence(const SassInstruction& ins, const KernelContext& ctx, int line, std::string note) {
  EvidenceLink e;
  e.stage = Stage::Sass;
  e.loc = SourceLoc{ctx.task ? ctx.task->path : std::string(), line, 0};
  e.ir_line = ins.line;
  e.quote = fmt::format("/*{:04x}*/ {}", ins.offset, ins.text);
  e.note = std::move(note);
  return e;
}

std::vector<HotLine> hot_lines(const KernelContext& ctx) {
  if (ctx.profile && ctx.program && ctx.program->sass && ctx.task)
    return attribute_hot_lines(*ctx.profile, *ctx.program->sass, ctx.task->path,
                               ctx.program->llir ? &*ctx.program->llir : nullptr);
  return ctx.hot_lines ? *ctx.hot_lines : std::vector<HotLine>{};
}

const SassInstruction* sass_at(const KernelContext& ctx, uint32_t offset) {
  if (!ctx.program || !ctx.program->sass) return nullptr;
  const auto& sass = *ctx.program->sass;
  std::string kernel = ctx.kernel_name();
  bool named = std::find(sass.functions.begin(), sass.functions.end(), kernel) != sass.functions.end();
  for (const auto& ins : sass.instructions)
    if (ins.offset == offset && (!named || ins.function == kernel)) return &ins;
  return nullptr;
}

const NcuSourceInstruction* source_at(const NcuProfile& profile, uint32_t offset) {
  for (const auto& s : profile.source)
    if (s.address == offset) return &s;
  return nullptr;
}

namespace {

// Registers named in an operand: "R8.64" -> R8, R9; "desc[UR10][R8.64+0x200]" -> R8, R9; "-R2" -> R2.
void registers_in(std::string_view operand, std::set<int>& out) {
  for (size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != 'R' || (i > 0 && (std::isalnum(static_cast<unsigned char>(operand[i - 1])) || operand[i - 1] == '_')))
      continue;
    size_t j = i + 1;
    int reg = 0;
    while (j < operand.size() && std::isdigit(static_cast<unsigned char>(operand[j]))) reg = reg * 10 + (operand[j++] - '0');
    if (j == i + 1) continue;
    int width = 1;
    if (operand.substr(j).starts_with(".64")) width = 2;
    else if (operand.substr(j).starts_with(".128")) width = 4;
    for (int k = 0; k < width; ++k) out.insert(reg + k);
    i = j - 1;
  }
}

bool is_long_scoreboard_load(const SassInstruction& ins) {
  static constexpr std::array<std::string_view, 8> kOps{"LDG", "LD", "LDL", "ATOMG", "ATOM", "TEX", "TLD", "SULD"};
  return std::find(kOps.begin(), kOps.end(), ins.opcode) != kOps.end();
}

// Registers a load writes: its first operand, widened by its access size.
std::set<int> destination(const SassInstruction& ins) {
  std::set<int> regs;
  if (ins.operands.empty()) return regs;
  std::set<int> first;
  registers_in(ins.operands.front(), first);
  if (first.empty()) return regs;
  int base = *first.begin();
  int n = std::max(1, ins.access_bits() / 32);
  for (int k = 0; k < n; ++k) regs.insert(base + k);
  return regs;
}

bool writes_no_register(const SassInstruction& ins) {
  static constexpr std::array<std::string_view, 10> kOps{"STG", "STS", "ST", "STL", "BAR", "BRA", "EXIT",
                                                         "DEPBAR", "RED", "WARPSYNC"};
  return std::find(kOps.begin(), kOps.end(), ins.opcode) != kOps.end();
}

}  // namespace

std::vector<const SassInstruction*> long_scoreboard_producers(const KernelContext& ctx, const SassInstruction& ins) {
  std::vector<const SassInstruction*> out;
  if (!ctx.program || !ctx.program->sass) return out;
  std::vector<const SassInstruction*> fn;
  for (const auto& i : ctx.program->sass->instructions)
    if (i.function == ins.function) fn.push_back(&i);
  auto at = std::find(fn.begin(), fn.end(), &ins);
  if (at == fn.end()) return out;
  size_t pos = static_cast<size_t>(at - fn.begin());
  // Right after a DEPBAR (cp.async wait): the asynchronous copies.
  for (size_t back = 1; back <= 2 && back <= pos; ++back)
    if (fn[pos - back]->opcode == "DEPBAR") {
      for (const auto* i : fn)
        if (i->opcode == "LDGSTS") out.push_back(i);
      return out;
    }
  std::set<int> sources;
  for (size_t k = writes_no_register(ins) ? 0 : 1; k < ins.operands.size(); ++k) registers_in(ins.operands[k], sources);
  if (sources.empty()) return out;
  auto writes_source = [&](const SassInstruction* i) {
    if (!is_long_scoreboard_load(*i)) return false;
    for (int r : destination(*i))
      if (sources.count(r)) return true;
    return false;
  };
  for (size_t k = pos; k-- > 0;)
    if (writes_source(fn[k])) return {fn[k]};
  for (size_t k = fn.size(); k-- > pos + 1;)  // loop-carried: a load later in the loop body
    if (writes_source(fn[k])) return {fn[k]};
  return out;
}

std::string stall_name(std::string_view reason) {
  static const std::map<std::string_view, std::string_view> kNames{
      {"long_sb", "long scoreboard"},   {"short_sb", "short scoreboard"}, {"barrier", "barrier"},
      {"lg", "LG throttle"},            {"mio", "MIO throttle"},          {"math", "math pipe throttle"},
      {"wait", "fixed-latency wait"},   {"drain", "drain"},               {"membar", "memory barrier"},
      {"branch_resolving", "branch resolving"}, {"no_inst", "no instruction"}, {"dispatch", "dispatch stall"},
      {"imc", "constant cache miss"},   {"tex", "texture throttle"},      {"sleep", "sleeping"},
      {"misc", "miscellaneous"},        {"not_selected", "not selected"}, {"selected", "selected (issuing)"}};
  auto it = kNames.find(reason);
  return it == kNames.end() ? std::string(reason) : std::string(it->second);
}

std::string stall_meaning(std::string_view reason) {
  static const std::map<std::string_view, std::string_view> kMeaning{
      {"long_sb", "the warp waits for the result of a global or local memory access (L1TEX): memory latency is "
                  "not hidden"},
      {"short_sb", "the warp waits for a shared-memory, shuffle or special-function result (MIO)"},
      {"barrier", "the warp waits at a block-wide barrier (bar.sync) for the other warps of its block"},
      {"lg", "the queue of global/local memory instructions is full: too many memory instructions"},
      {"mio", "the MIO queue (shared memory, shuffles, special functions) is full"},
      {"math", "the math pipe the instruction needs is busy"},
      {"wait", "a fixed-latency dependency on the previous instruction"},
      {"drain", "the warp waits at exit for its memory stores to drain"},
      {"membar", "the warp waits on a memory barrier"},
      {"branch_resolving", "the warp waits for a branch target to be computed"},
      {"no_inst", "the warp has no instruction fetched (instruction cache miss, or after a branch)"},
      {"dispatch", "the dispatcher could not issue the selected instruction"},
      {"imc", "the warp waits for a constant-cache miss"}};
  auto it = kMeaning.find(reason);
  return it == kMeaning.end() ? fmt::format("stall reason '{}'", reason) : std::string(it->second);
}

double gain_from_speedup(double percent) {
  double p = std::clamp(percent, 0.0, 95.0) / 100.0;
  return 1.0 / (1.0 - p);
}

std::optional<double> roofline_headroom(const KernelContext& ctx) {
  if (!ctx.roofline || ctx.roofline->fraction <= 0) return std::nullopt;
  return std::max(1.0, 1.0 / ctx.roofline->fraction);
}

std::vector<std::pair<std::string, long long>> block_constexprs(const KernelContext& ctx) {
  return ctx.launch ? ctx.launch->block_constexprs() : std::vector<std::pair<std::string, long long>>{};
}

std::string percent(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

std::string count(long long n) {
  std::string digits = std::to_string(std::llabs(n)), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string rate(double bps) {
  if (bps >= 1e12) return fmt::format("{:.2f} TB/s", bps / 1e12);
  return fmt::format("{:.0f} GB/s", bps / 1e9);
}

}  // namespace tdx::l1
