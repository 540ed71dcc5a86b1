#include "tritondx/analysis/kernel_summary.h"

#include <algorithm>

#include "tritondx/ir/instruction_class.h"
#include "tritondx/ir/source_map.h"
#include "tritondx/core/text.h"

namespace tdx {

namespace {

// The op text without its trailing loc(...), for quoting.
std::string quote_op(const MlirOp& op) {
  std::string_view t = op.text;
  auto pos = t.rfind(" loc(");
  if (pos != std::string_view::npos) t = t.substr(0, pos);
  return trim_copy(t);
}

std::string join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

const MlirType* first_type(const std::vector<MlirType>& types) { return types.empty() ? nullptr : &types.front(); }

int fastest_size_per_thread(const MlirModule& m, const MlirType& type) {
  const Layout* l = m.layout(type.encoding);
  if (!l || l->kind != LayoutKind::Blocked || l->size_per_thread.empty()) return 0;
  size_t dim = l->order.empty() ? l->size_per_thread.size() - 1 : static_cast<size_t>(l->order.front());
  return dim < l->size_per_thread.size() ? static_cast<int>(l->size_per_thread[dim]) : 0;
}

bool is_inside(const MlirModule& m, const MlirOp& op, std::string_view parent_name) {
  for (int p = op.parent; p >= 0; p = m.ops[static_cast<size_t>(p)].parent)
    if (m.ops[static_cast<size_t>(p)].name == parent_name) return true;
  return false;
}

int enclosing_loop(const MlirModule& m, const MlirOp& op) {
  for (int p = op.parent; p >= 0; p = m.ops[static_cast<size_t>(p)].parent)
    if (m.ops[static_cast<size_t>(p)].name == "scf.for") return p;
  return -1;
}

// cp.async.cg.shared.global [dst], [src], 16, p; -- the copy size in bytes is the third operand.
int async_copy_bits(const PtxInstruction& ins) {
  if (ins.operands.size() < 3) return 0;
  try {
    return static_cast<int>(std::stoul(ins.operands[2], nullptr, 0)) * 8;
  } catch (const std::exception&) {
    return 0;
  }
}

void summarize_memory(const Program& prog, const SourceMap& map, KernelSummary& s) {
  const auto& m = *prog.ttgir;
  for (const auto& op : m.ops) {
    bool async = op.name == "ttg.async_copy_global_to_local";
    bool load = op.name == "tt.load" || async;
    if (!load && op.name != "tt.store") continue;
    MemoryAccess a;
    a.loc = op.loc;
    a.kind = async ? "async-copy" : load ? "load" : "store";
    a.ttgir_op = quote_op(op);
    const MlirType* ptr_type = first_type(op.operand_types);
    if (!ptr_type && load) ptr_type = first_type(op.result_types);
    if (ptr_type) {
      a.element = ptr_type->is_pointer ? ptr_type->pointee : ptr_type->element;
      a.elements_per_thread = fastest_size_per_thread(m, *ptr_type);
    }
    // tt.load %ptr, %mask, %other; tt.store %ptr, %value, %mask; async_copy %ptr, %smem, %mask, %other
    a.masked = async ? op.operands.size() >= 3 : load ? op.operands.size() >= 2 : op.operands.size() >= 3;
    const auto wanted = async ? InstructionClass::AsyncCopy
                              : load ? InstructionClass::GlobalLoad : InstructionClass::GlobalStore;
    if (prog.ptx && op.loc.known()) {
      for (int idx : map.at(Stage::Ptx, op.loc.line)) {
        const auto& ins = prog.ptx->instructions[static_cast<size_t>(idx)];
        if (classify(ins) == wanted) {
          ++a.ptx_instructions;
          ++a.ptx_bits[async ? async_copy_bits(ins) : ins.access_bits()];
        }
      }
    }
    s.memory.push_back(std::move(a));
  }
}

std::string element_of(const MlirType* t) { return t ? t->element : std::string(); }

void summarize_dots(const Program& prog, KernelSummary& s) {
  const auto& m = *prog.ttgir;
  for (const auto& op : m.ops) {
    bool wgmma = op.name == "ttng.warp_group_dot";
    if (!wgmma && op.name != "tt.dot") continue;
    DotInfo d;
    d.loc = op.loc;
    d.ttgir_op = quote_op(op);
    if (op.operand_types.size() >= 3) {
      d.a_type = op.operand_types[0].element;
      d.b_type = op.operand_types[1].element;
    }
    const MlirType* result = first_type(op.result_types);
    d.acc_type = element_of(result);
    if (result) d.shape = result->shape;
    if (wgmma) {
      d.mma = "wgmma";
    } else {
      const Layout* l = result ? m.layout(result->encoding) : nullptr;
      if (l && l->kind == LayoutKind::NvidiaMma) d.mma = l->version_major >= 3 ? "wgmma" : "mma.sync";
      else d.mma = "fma";
    }
    s.dots.push_back(std::move(d));
  }
}

void summarize_conversions(const Program& prog, KernelSummary& s) {
  const auto& m = *prog.ttgir;
  for (const auto& op : m.ops) {
    if (op.name != "ttg.convert_layout") continue;
    LayoutConversion c;
    c.loc = op.loc;
    c.ttgir_op = quote_op(op);
    const MlirType* src = first_type(op.operand_types);
    const MlirType* dst = first_type(op.result_types);
    if (src) c.from = src->encoding;
    if (dst) {
      c.to = dst->encoding;
      c.bytes = dst->num_elements() * std::max(dst->element_bits(), 8) / 8;
    }
    c.in_loop = is_inside(m, op, "scf.for");
    s.conversions.push_back(std::move(c));
  }
}

void summarize_loops(const Program& prog, KernelSummary& s) {
  const auto& m = *prog.ttgir;
  std::map<int, size_t> loop_slot;
  for (const auto& op : m.ops) {
    if (op.name != "scf.for") continue;
    LoopInfo l;
    l.loc = op.loc;
    l.depth = op.depth;
    l.num_stages_attr = static_cast<int>(op.int_attribute("tt.num_stages").value_or(0));
    loop_slot[op.index] = s.loops.size();
    s.loops.push_back(l);
  }
  for (const auto& op : m.ops) {
    int loop = enclosing_loop(m, op);
    if (loop < 0) continue;
    auto& l = s.loops[loop_slot[loop]];
    if (op.name == "ttg.async_copy_global_to_local") ++l.async_copies;
    if (op.name == "ttng.async_tma_copy_global_to_local") ++l.tma_loads;
    if (op.name == "ttng.warp_group_dot" || op.name == "tt.dot") ++l.dots;
    if (op.attribute("loop.stage")) l.pipelined = true;
  }
  for (auto& l : s.loops) l.pipelined = l.pipelined || l.async_copies > 0 || l.tma_loads > 0;
}

}  // namespace

std::string describe_layout(const MlirModule& module, const std::string& encoding) {
  const Layout* l = module.layout(encoding);
  if (!l) return encoding;
  switch (l->kind) {
    case LayoutKind::Blocked:
      return fmt::format("blocked spt={} tpw={} wpc={} order={}", join(l->size_per_thread),
                         join(l->threads_per_warp), join(l->warps_per_cta), join(l->order));
    case LayoutKind::NvidiaMma:
      return fmt::format("mma v{} wpc={} instr={}", l->version_major, join(l->warps_per_cta), join(l->instr_shape));
    case LayoutKind::DotOperand:
      return fmt::format("dot_op op{} of {} kWidth={}", l->op_idx, l->parent, l->k_width);
    case LayoutKind::Slice:
      return fmt::format("slice dim={} of {}", l->slice_dim, describe_layout(module, l->parent));
    default:
      return std::string(layout_kind_name(l->kind));
  }
}

KernelSummary summarize(const Program& prog, const TargetDescription& target) {
  KernelSummary s;
  s.name = prog.kernel;
  s.resources = prog.resources;
  s.occupancy = compute_occupancy(target, prog.resources.num_warps, prog.resources.registers,
                                  prog.resources.shared_bytes);
  for (const auto& d : prog.problems) s.problems.push_back(d.to_string());
  std::string source_file;
  if (prog.ttgir)
    for (const auto& op : prog.ttgir->ops)
      if (op.loc.known()) { source_file = op.loc.file; break; }
  SourceMap map = SourceMap::build(prog, source_file);
  if (prog.ttgir) {
    summarize_memory(prog, map, s);
    summarize_dots(prog, s);
    summarize_conversions(prog, s);
    summarize_loops(prog, s);
  }
  if (prog.ptx) {
    for (const auto& ins : prog.ptx->instructions) {
      auto cls = classify(ins);
      ++s.ptx_classes[std::string(instruction_class_name(cls))];
      if (cls == InstructionClass::AsyncCopy) ++s.async_copies_ptx;
      if (cls == InstructionClass::Tma) ++s.tma_ptx;
      if (cls == InstructionClass::Wgmma) ++s.wgmma_ptx;
      if (cls == InstructionClass::MmaSync) ++s.mma_sync_ptx;
    }
  }
  if (prog.sass)
    for (const auto& ins : prog.sass->instructions) ++s.sass_classes[std::string(instruction_class_name(classify(ins)))];
  for (const auto& r : prog.remarks)
    s.remarks.push_back(fmt::format("{}:{}: {}: {}", r.loc.line, r.loc.col, r.severity, r.message));
  return s;
}

namespace {
nlohmann::json loc_json(const SourceLoc& l) { return {{"file", l.file}, {"line", l.line}, {"col", l.col}}; }
}  // namespace

void to_json(nlohmann::json& j, const MemoryAccess& m) {
  nlohmann::json bits = nlohmann::json::object();
  for (const auto& [b, n] : m.ptx_bits) bits[std::to_string(b)] = n;
  j = {{"loc", loc_json(m.loc)}, {"kind", m.kind}, {"ttgir", m.ttgir_op}, {"element", m.element},
       {"elements_per_thread", m.elements_per_thread}, {"ptx_instructions", m.ptx_instructions},
       {"ptx_bits", bits}, {"masked", m.masked}};
}

void to_json(nlohmann::json& j, const DotInfo& d) {
  j = {{"loc", loc_json(d.loc)}, {"mma", d.mma}, {"a", d.a_type}, {"b", d.b_type}, {"acc", d.acc_type},
       {"shape", d.shape}, {"ttgir", d.ttgir_op}};
}

void to_json(nlohmann::json& j, const LayoutConversion& c) {
  j = {{"loc", loc_json(c.loc)}, {"from", c.from}, {"to", c.to}, {"bytes", c.bytes}, {"in_loop", c.in_loop},
       {"ttgir", c.ttgir_op}};
}

void to_json(nlohmann::json& j, const LoopInfo& l) {
  j = {{"loc", loc_json(l.loc)}, {"depth", l.depth}, {"async_copies", l.async_copies}, {"tma_loads", l.tma_loads},
       {"dots", l.dots}, {"num_stages_attr", l.num_stages_attr}, {"pipelined", l.pipelined}};
}

void to_json(nlohmann::json& j, const KernelSummary& s) {
  const auto& r = s.resources;
  j = {{"name", s.name},
       {"resources",
        {{"registers", r.registers}, {"spill_stores", r.spill_stores}, {"spill_loads", r.spill_loads},
         {"stack_frame", r.stack_frame}, {"local_bytes", r.local_bytes}, {"shared_bytes", r.shared_bytes},
         {"num_warps", r.num_warps}, {"num_stages", r.num_stages}, {"num_ctas", r.num_ctas}}},
       {"occupancy", s.occupancy},
       {"memory", s.memory},
       {"dots", s.dots},
       {"layout_conversions", s.conversions},
       {"loops", s.loops},
       {"ptx_classes", s.ptx_classes},
       {"sass_classes", s.sass_classes},
       {"async_copies_ptx", s.async_copies_ptx},
       {"tma_ptx", s.tma_ptx},
       {"wgmma_ptx", s.wgmma_ptx},
       {"mma_sync_ptx", s.mma_sync_ptx},
       {"remarks", s.remarks},
       {"problems", s.problems}};
}

}  // namespace tdx
