#include "tritondx/analysis/static_cost.h"

#include <algorithm>
#include <map>

#include "tritondx/analysis/scalar_eval.h"

namespace tdx {

namespace {

// "iter_args(%a = %b, %c = %d)" of an scf.for, as block-argument -> init value.
void add_iter_args(const MlirOp& op, std::map<std::string, std::string>& out) {
  std::string_view t = op.text;
  auto pos = t.find("iter_args(");
  if (pos == std::string_view::npos) return;
  t = t.substr(pos + 10);
  while (!t.empty() && t.front() != ')') {
    auto eq = t.find(" = ");
    if (eq == std::string_view::npos) return;
    std::string_view name = t.substr(0, eq);
    while (!name.empty() && (name.front() == ' ' || name.front() == ',')) name.remove_prefix(1);
    t = t.substr(eq + 3);
    size_t end = t.find_first_of(",)");
    if (end == std::string_view::npos) return;
    out[std::string(name)] = std::string(t.substr(0, end));
    t = t.substr(end);
    if (!t.empty() && t.front() == ',') t.remove_prefix(1);
  }
}

// Follows a pointer value back to the kernel argument it is derived from.
std::string base_pointer(const MlirModule& m, std::string value, const std::map<std::string, std::string>& iter_init) {
  for (int guard = 0; guard < 64; ++guard) {
    if (auto it = iter_init.find(value); it != iter_init.end()) {
      value = it->second;
      continue;
    }
    const MlirOp* op = m.defining_op(value);
    if (!op) break;
    const auto& n = op->name;
    if ((n == "tt.addptr" || n == "tt.splat" || n == "tt.broadcast" || n == "tt.expand_dims" ||
         n == "ttg.convert_layout" || n == "tt.reshape" || n == "tt.trans") && !op->operands.empty()) {
      value = op->operands.front();
      continue;
    }
    break;
  }
  return value.size() > 1 && value[0] == '%' ? value.substr(1) : value;
}

double elem_bytes(const MlirType& t) {
  if (t.is_pointer) {
    auto p = parse_mlir_type(t.pointee);
    if (p) return std::max(p->element_bits(), 8) / 8.0;
    return 4;
  }
  return std::max(t.element_bits(), 8) / 8.0;
}

double peak(const TargetDescription& t, const std::string& key) {
  auto it = t.ceilings.find(key);
  return it == t.ceilings.end() ? 0 : it->second.value;
}

std::string peak_key_for(const std::string& dtype) {
  if (dtype == "f16") return "fp16_flops";
  if (dtype == "bf16") return "bf16_flops";
  if (dtype.rfind("f8", 0) == 0) return "fp8_flops";
  if (dtype == "f32") return "tf32_flops";
  return "fp32_flops";
}

}  // namespace

StaticCostEstimate estimate_static_cost(const Program& program, const KernelSummary& summary,
                                        const LaunchInfo& launch, const TargetDescription& target,
                                        long long min_bytes, long long flops) {
  StaticCostEstimate e;
  e.min_bytes = static_cast<double>(min_bytes);
  const double programs = static_cast<double>(launch.programs());
  const MlirModule* m = program.ttir ? &*program.ttir : nullptr;
  if (!m) {
    e.assumptions.push_back("no TTIR: bytes taken as the task's minimum");
    e.hbm_bytes = e.min_bytes;
  } else {
    ScalarEvaluator eval(*m, [&](std::string_view name) { return launch.int_arg(name); });
    std::map<std::string, std::string> iter_init;
    for (const auto& op : m->ops)
      if (op.name == "scf.for") add_iter_args(op, iter_init);
    std::map<std::pair<std::string, bool>, TensorTraffic> per_base;
    double dot_flops = 0;
    for (const auto& op : m->ops) {
      bool load = op.name == "tt.load";
      bool store = op.name == "tt.store";
      bool dot = op.name == "tt.dot";
      if (!load && !store && !dot) continue;
      double executions = programs;
      for (int p = op.parent; p >= 0; p = m->ops[static_cast<size_t>(p)].parent) {
        const auto& parent = m->ops[static_cast<size_t>(p)];
        if (parent.name != "scf.for") continue;
        if (auto trips = eval.trip_count(parent)) executions *= static_cast<double>(*trips);
        else e.trip_counts_known = false;
      }
      if (dot) {
        if (!op.result_types.empty() && op.result_types.front().shape.size() >= 2 && !op.operand_types.empty() &&
            op.operand_types.front().shape.size() >= 2) {
          const auto& r = op.result_types.front().shape;
          double k = static_cast<double>(op.operand_types.front().shape.back());
          dot_flops += 2.0 * static_cast<double>(r[r.size() - 2]) * static_cast<double>(r.back()) * k * executions;
        }
        continue;
      }
      const MlirType* type = load ? (op.result_types.empty() ? nullptr : &op.result_types.front())
                                  : (op.operand_types.empty() ? nullptr : &op.operand_types.front());
      if (!type || op.operands.empty()) continue;
      double elements = type->is_tensor ? static_cast<double>(type->num_elements()) : 1.0;
      double bytes = elements * elem_bytes(*type) * executions;
      auto base = base_pointer(*m, op.operands.front(), iter_init);
      auto& t = per_base[{base, store}];
      t.base = base;
      t.store = store;
      t.bytes += bytes;
      if (auto it = launch.args.find(base); it != launch.args.end() && it->value("kind", "") == "tensor")
        t.tensor_bytes = it->value("bytes", 0.0);
    }
    for (auto& [_, t] : per_base) {
      double first = t.tensor_bytes > 0 ? std::min(t.bytes, t.tensor_bytes) : t.bytes;
      e.hbm_bytes += first;
      e.l2_bytes += t.bytes - first;
      e.traffic.push_back(t);
    }
    if (!e.trip_counts_known) e.assumptions.push_back("some loop trip counts could not be evaluated: counted once");
    if (flops <= 0 && dot_flops > 0) {
      e.flops = dot_flops;
      e.assumptions.push_back("FLOPs from the IR: 2*M*N*K per tt.dot execution");
    }
  }
  if (flops > 0) e.flops = static_cast<double>(flops);
  if (e.min_bytes <= 0) {
    e.min_bytes = e.hbm_bytes;
    e.assumptions.push_back("the task declares no byte count: the minimum is taken as the estimated HBM traffic");
  }
  // Masked tails and padding make the IR count a slight overestimate; never below the minimum.
  e.hbm_bytes = std::max(e.hbm_bytes, e.min_bytes);

  const double hbm = peak(target, "hbm_bytes_per_second");
  const double l2 = peak(target, "l2_bytes_per_second") > 0 ? peak(target, "l2_bytes_per_second") : hbm;
  if (!summary.dots.empty()) {
    const auto& d = summary.dots.front();
    e.best_peak = peak(target, peak_key_for(d.a_type));
    e.compute_path = d.mma;
    if (d.mma == "wgmma") e.compute_peak = e.best_peak;
    else if (d.mma == "mma.sync") {
      double fraction = 0.62;
      if (auto it = target.ceilings.find("mma_sync_fraction_of_peak"); it != target.ceilings.end())
        fraction = it->second.value;
      e.compute_peak = e.best_peak * fraction;
    } else {
      e.compute_peak = peak(target, "fp32_flops");
    }
  } else {
    e.compute_path = "simt";
    e.best_peak = e.compute_peak = peak(target, "fp32_flops");
  }
  double compute_floor = e.best_peak > 0 ? e.flops / e.best_peak : 0;
  double memory_floor = hbm > 0 ? e.min_bytes / hbm : 0;
  e.floor_seconds = std::max(compute_floor, memory_floor);
  double memory_estimate = hbm > 0 ? e.hbm_bytes / hbm + e.l2_bytes / l2 : 0;
  double compute_estimate = e.compute_peak > 0 ? e.flops / e.compute_peak : 0;
  e.estimate_seconds = std::max(memory_estimate, compute_estimate);
  e.bound = compute_estimate > memory_estimate ? "compute" : "memory";
  e.gap = e.floor_seconds > 0 ? e.estimate_seconds / e.floor_seconds : 1;
  e.assumptions.push_back("static model: no latency, occupancy or launch effects; L1 measurements replace it");
  return e;
}

std::string compute_ceiling_key(const KernelSummary& summary) {
  if (summary.dots.empty()) return "fp32_flops";
  return peak_key_for(summary.dots.front().a_type);
}

void to_json(nlohmann::json& j, const StaticCostEstimate& e) {
  nlohmann::json traffic = nlohmann::json::array();
  for (const auto& t : e.traffic)
    traffic.push_back({{"base", t.base}, {"bytes", t.bytes}, {"tensor_bytes", t.tensor_bytes}, {"store", t.store}});
  j = {{"min_bytes", e.min_bytes},         {"flops", e.flops},
       {"hbm_bytes", e.hbm_bytes},         {"l2_bytes", e.l2_bytes},
       {"traffic", traffic},               {"compute_path", e.compute_path},
       {"compute_peak", e.compute_peak},   {"best_peak", e.best_peak},
       {"floor_seconds", e.floor_seconds}, {"estimate_seconds", e.estimate_seconds},
       {"gap", e.gap},                     {"bound", e.bound},
       {"trip_counts_known", e.trip_counts_known}, {"assumptions", e.assumptions}};
}

}  // namespace tdx
