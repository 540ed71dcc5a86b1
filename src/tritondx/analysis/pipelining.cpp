#include "tritondx/analysis/pipelining.h"

#include <functional>
#include <map>
#include <set>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/analysis/mlir_graph.h"
#include "tritondx/analysis/pass_snapshots.h"
#include "tritondx/ir/source_map.h"

namespace tdx {

std::string_view blocker_name(PipelineBlocker blocker) {
  switch (blocker) {
    case PipelineBlocker::None: return "none";
    case PipelineBlocker::NumStages: return "num-stages";
    case PipelineBlocker::OuterLoop: return "outer-loop";
    case PipelineBlocker::Distance: return "loop-carried-distance";
    case PipelineBlocker::NoDot: return "no-dot";
    case PipelineBlocker::NestedRegion: return "nested-region";
    case PipelineBlocker::NotDotOperand: return "not-dot-operand";
    case PipelineBlocker::Narrow: return "narrow-load";
    case PipelineBlocker::Indirection: return "indirection";
    case PipelineBlocker::Other: return "other";
  }
  return "other";
}

namespace {

bool is_dot(std::string_view name) {
  return name == "tt.dot" || name == "ttng.warp_group_dot" || name == "tt.dot_scaled" || name == "ttng.tc_gen5_mma";
}

bool is_global_load(const MlirOp& op) {
  if (op.name == "tt.descriptor_load" || op.name == "tt.descriptor_gather") return true;
  return op.name == "tt.load" && !op.result_types.empty() && op.result_types[0].is_tensor;
}

// The op of `other` that corresponds to `op` of `base`: the same index when both modules
// have the same op names (attribute-only passes), else the same name, location and rank.
int corresponding_op(const MlirModule& base, int op, const MlirModule& other) {
  const MlirOp& o = base.ops[static_cast<size_t>(op)];
  if (base.ops.size() == other.ops.size() && other.ops[static_cast<size_t>(op)].name == o.name &&
      other.ops[static_cast<size_t>(op)].loc == o.loc)
    return op;
  int rank = 0;
  for (int k = 0; k < op; ++k)
    if (base.ops[static_cast<size_t>(k)].name == o.name && base.ops[static_cast<size_t>(k)].loc == o.loc) ++rank;
  for (const auto& c : other.ops)
    if (c.name == o.name && c.loc == o.loc && rank-- == 0) return c.index;
  return -1;
}

// Triton's loadOpsToIndirectionLevel: walks back from each dot's A/B operands (or, for a
// loop with tt.num_stages and no dot, from every non-load op) through ops of the loop body;
// a load's level is the number of loads between it and the root.
std::map<int, int> indirection_levels(const MlirModule& m, int for_op, bool has_dot, bool without_dot,
                                      const std::function<bool(int)>& narrow) {
  std::map<int, int> level;
  std::set<int> excluded;
  std::set<int> seen;
  std::function<void(int, int)> dfs = [&](int op, int distance) {
    if (!seen.insert(op).second || excluded.count(op)) return;
    const MlirOp& o = m.ops[static_cast<size_t>(op)];
    if (o.name == "tt.load" || o.name == "tt.descriptor_load" || o.name == "tt.descriptor_gather") {
      if (narrow(op)) return;
      if (auto it = level.find(op); it != level.end()) {
        if (it->second != distance) {
          level.erase(it);
          excluded.insert(op);
          return;
        }
      } else {
        level[op] = distance;
      }
      ++distance;
    }
    for (size_t i = 0; i < o.operands.size(); ++i) {
      if (is_dot(o.name) && i == 2) continue;  // the accumulator is not pipelined
      const MlirOp* def = m.defining_op(o.operands[i]);
      if (def && def->parent == o.parent) dfs(def->index, distance);
    }
  };
  auto body = loop_body(m, for_op);
  if (has_dot) {
    for (int op : body)
      if (is_dot(m.ops[static_cast<size_t>(op)].name)) {
        seen.clear();
        dfs(op, 0);
      }
  } else if (without_dot) {
    for (int op : body) {
      const auto& name = m.ops[static_cast<size_t>(op)].name;
      if (name != "tt.load" && name != "tt.descriptor_load" && name != "tt.descriptor_gather") dfs(op, 0);
    }
  }
  return level;
}

std::string became_at(const MlirModule* final_ttgir, const SourceLoc& loc) {
  if (!final_ttgir) return {};
  bool async = false, tma = false, load = false;
  for (const auto& op : final_ttgir->ops) {
    if (op.loc != loc) continue;
    async |= op.name == "ttg.async_copy_global_to_local";
    tma |= op.name == "ttng.async_tma_copy_global_to_local" || op.name == "ttng.async_tma_gather";
    load |= op.name == "tt.load" || op.name == "tt.descriptor_load";
  }
  if (async) return "async-copy";
  if (tma) return "tma";
  if (load) return "load";
  return {};
}

}  // namespace

PipeliningAnalysis analyze_pipelining(const PassDump& dump, const MlirModule* final_ttgir, int default_num_stages,
                                      const std::string& source_file) {
  PipeliningAnalysis a;
  a.assign_step = find_step(dump, "TritonGPUAssignLatencies");
  if (a.assign_step < 0) return a;
  a.schedule_step = find_step(dump, "TritonGPUScheduleLoops", a.assign_step);
  a.pipeline_step = find_step(dump, "TritonGPUPipeline", a.assign_step);
  const PassSnapshot* pre_snap = snapshot_before(dump, a.assign_step);
  const PassSnapshot* lat_snap = snapshot_after(dump, a.assign_step);
  const PassSnapshot* sched_snap = a.pipeline_step >= 0 ? snapshot_before(dump, a.pipeline_step)
                                                        : snapshot_after(dump, a.schedule_step);
  if (!pre_snap) return a;
  a.pre = parse_snapshot(*pre_snap);
  if (!a.pre) return a;
  std::optional<MlirModule> lat = lat_snap ? parse_snapshot(*lat_snap) : std::nullopt;
  if (sched_snap) a.sched = parse_snapshot(*sched_snap);
  const MlirModule& pre = *a.pre;

  // Width of each load as Triton's isSmallLoad sees it: the axis-info replay, else the layout.
  std::map<int, std::pair<int, std::string>> widths;  // op -> (vec, root argument)
  try {
    AxisInfoAnalysis axis = AxisInfoAnalysis::run(pre);
    for (const auto& m : axis.memory_ops())
      if (m.kind == "load") widths[m.op_index] = {m.predicted_vec, m.root_argument};
  } catch (const std::exception&) {
  }
  auto vec_of = [&](int op) -> int {
    if (auto it = widths.find(op); it != widths.end()) return it->second.first;
    const MlirOp& o = pre.ops[static_cast<size_t>(op)];
    if (o.result_types.empty()) return 0;
    const Layout* layout = pre.layout(o.result_types[0].encoding);
    if (!layout || layout->kind != LayoutKind::Blocked || layout->order.empty()) return 0;
    size_t d = static_cast<size_t>(layout->order[0]);
    return d < layout->size_per_thread.size() ? static_cast<int>(layout->size_per_thread[d]) : 0;
  };
  auto bits_of = [&](int op) -> int {
    const MlirOp& o = pre.ops[static_cast<size_t>(op)];
    return o.result_types.empty() ? 0 : o.result_types[0].element_bits();
  };
  auto narrow = [&](int op) {
    if (pre.ops[static_cast<size_t>(op)].name != "tt.load") return false;
    int vec = vec_of(op), bits = bits_of(op);
    return vec > 0 && bits > 0 && vec * bits < 32;
  };

  for (int f : for_loops(pre)) {
    const MlirOp& fop = pre.ops[static_cast<size_t>(f)];
    LoopPipelining loop;
    loop.pre_op = f;
    loop.loc = fop.loc;
    loop.line = source_line(fop, source_file);
    loop.rank = loop_rank(pre, f);
    for (int k = f + 1; k < static_cast<int>(pre.ops.size()) && is_nested_in(pre, k, f); ++k) {
      const MlirOp& o = pre.ops[static_cast<size_t>(k)];
      if (enclosing_for(pre, k) != f || !is_global_load(o)) continue;
      LoadPipelining l;
      l.pre_op = k;
      l.loc = o.loc;
      l.line = source_line(o, source_file);
      l.op_name = o.name;
      l.element_bits = bits_of(k);
      l.vec = vec_of(k);
      if (auto it = widths.find(k); it != widths.end()) l.root_argument = it->second.second;
      loop.loads.push_back(std::move(l));
    }
    if (loop.loads.empty()) continue;
    auto body = loop_body(pre, f);
    for (int op : body) loop.has_dot |= is_dot(pre.ops[static_cast<size_t>(op)].name);
    if (auto ns = fop.int_attribute("tt.num_stages")) loop.loop_num_stages = static_cast<int>(*ns);
    loop.num_stages = loop.loop_num_stages.value_or(default_num_stages);
    loop.outer = has_inner_loop(pre, f);
    if (auto fl = for_loop(pre, f); fl && fl->yield >= 0)
      for (const auto& v : pre.ops[static_cast<size_t>(fl->yield)].operands)
        if (!pre.defining_op(v)) loop.distance_yield = fl->yield;

    if (loop.distance_yield >= 0)
      loop.blocker = PipelineBlocker::Distance;
    else if (loop.outer)
      loop.blocker = PipelineBlocker::OuterLoop;
    else if (loop.num_stages <= 1)
      loop.blocker = PipelineBlocker::NumStages;
    else if (!loop.has_dot && !loop.loop_num_stages)
      loop.blocker = PipelineBlocker::NoDot;

    std::map<int, int> levels;
    if (loop.blocker == PipelineBlocker::None)
      levels = indirection_levels(pre, f, loop.has_dot, loop.loop_num_stages.has_value(), narrow);

    if (a.sched) {
      loop.sched_op = find_loop(*a.sched, loop.loc, loop.rank);
      if (loop.sched_op >= 0) {
        const MlirOp& s = a.sched->ops[static_cast<size_t>(loop.sched_op)];
        if (auto ms = s.int_attribute("tt.scheduled_max_stage")) loop.max_stage = static_cast<int>(*ms);
        for (int op : loop_body(*a.sched, loop.sched_op))
          loop.scheduled |= a.sched->ops[static_cast<size_t>(op)].attribute("loop.stage") != nullptr;
      }
    }
    if (final_ttgir) loop.final_op = find_loop(*final_ttgir, loop.loc, loop.rank);

    for (auto& l : loop.loads) {
      if (lat) {
        int c = corresponding_op(pre, l.pre_op, *lat);
        if (c >= 0)
          if (auto v = lat->ops[static_cast<size_t>(c)].int_attribute("tt.latency")) l.latency = static_cast<int>(*v);
      }
      if (a.sched) {
        int c = corresponding_op(pre, l.pre_op, *a.sched);
        if (c >= 0)
          if (auto v = a.sched->ops[static_cast<size_t>(c)].int_attribute("loop.stage")) l.stage = static_cast<int>(*v);
      }
      l.became = became_at(final_ttgir, l.loc);
      if (auto it = levels.find(l.pre_op); it != levels.end()) l.indirection = it->second;
      if (l.latency) {
        l.blocker = PipelineBlocker::None;
      } else if (loop.blocker != PipelineBlocker::None) {
        l.blocker = loop.blocker;
      } else if (pre.ops[static_cast<size_t>(l.pre_op)].parent != f) {
        l.blocker = PipelineBlocker::NestedRegion;
      } else if (narrow(l.pre_op)) {
        l.blocker = PipelineBlocker::Narrow;
      } else if (l.indirection < 0) {
        l.blocker = loop.has_dot ? PipelineBlocker::NotDotOperand : PipelineBlocker::Other;
      } else if (l.indirection >= loop.num_stages - 1) {
        l.blocker = PipelineBlocker::Indirection;
      } else {
        l.blocker = PipelineBlocker::Other;
      }
    }
    a.loops.push_back(std::move(loop));
  }
  return a;
}

int count_ops_at_line(const MlirModule& module, std::string_view op_name, int line, const std::string& source_file) {
  int n = 0;
  for (const auto& op : module.ops)
    if (op.name == op_name && source_line(op, source_file) == line) ++n;
  return n;
}

}  // namespace tdx
