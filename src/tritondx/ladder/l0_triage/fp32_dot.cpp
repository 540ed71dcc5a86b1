// l0-fp32-dot: a tl.dot on fp32 operands at a precision the task's tolerance does not need.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class Fp32DotRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-fp32-dot"; }
  std::string_view description() const override {
    return "A tl.dot whose operands are fp32 (loaded through *fp32 pointers or cast with "
           ".to(tl.float32)) runs at a more expensive precision than needed: input_precision=\"ieee\" "
           "(or allow_tf32=False, or the launch default ieee) has no tensor-core path for f32 x f32 "
           "and runs on FMA units; \"tf32x3\"/\"bf16x3\" issue three MMAs per dot. With the default "
           "\"tf32\" the dot already uses tensor cores and the rule stays silent. The proposal depends "
           "on the task's tolerance: rtol >= tf32_min_rtol allows plain tf32; tighter tolerances get "
           "tf32x3 (still tensor cores, close to fp32 accuracy) instead of ieee.";
  }
  nlohmann::json options() const override { return {{"tf32_min_rtol", tf32_min_rtol_}}; }
  void configure(const nlohmann::json& o) override { tf32_min_rtol_ = o.value("tf32_min_rtol", tf32_min_rtol_); }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double tf32_min_rtol_ = 1e-3;
};

std::string dtype_name(const PyNode& n) {
  std::string d = normalize_triton_name(dotted_name(n));
  if (d == "tl.float32") return "fp32";
  if (d == "tl.float16") return "fp16";
  if (d == "tl.bfloat16") return "bf16";
  if (d == "tl.float64") return "fp64";
  if (d.starts_with("tl.float8")) return "fp8";
  return {};
}

// Element type of a dot operand: follows names, casts, transposes and loads.
std::string operand_type(const KernelView& view, const PyNode& e, int depth = 0) {
  if (depth > 32) return {};
  if (e.type == "Name") {
    const Definition* d = view.definition(e);
    return d && d->value && d->stmt->type != "For" ? operand_type(view, *d->value, depth + 1) : std::string();
  }
  if (e.type == "Subscript") return operand_type(view, *e.child("value"), depth + 1);
  if (e.type == "Attribute" && e.str_field("attr") == "T") return operand_type(view, *e.child("value"), depth + 1);
  if (e.type == "BinOp") {
    std::string l = operand_type(view, *e.child("left"), depth + 1);
    return l.empty() ? operand_type(view, *e.child("right"), depth + 1) : l;
  }
  if (e.type != "Call") return {};
  std::string name = call_name(e);
  if (name == "tl.load") return view.pointee_type(view.root_pointer(*KernelView::pointer_arg(e)));
  if (name == "tl.trans" || name == "tl.reshape" || name == "tl.permute")
    return operand_type(view, *argument(e, 0), depth + 1);
  if (name == "tl.zeros" || name == "tl.full") {
    const PyNode* dt = keyword(e, "dtype");
    return dt ? dtype_name(*dt) : std::string();
  }
  const PyNode* f = e.child("func");
  if (f && f->type == "Attribute" && f->str_field("attr") == "to") {
    const PyNode* dt = argument(e, 0) ? argument(e, 0) : keyword(e, "dtype");
    return dt ? dtype_name(*dt) : std::string();
  }
  if (name == "tl.cast" && argument(e, 1)) return dtype_name(*argument(e, 1));
  return {};
}

// Time for `flops` at `rate` when `bytes` must also move at the HBM rate.
double roofline_time(double flops, double rate, double bytes, double bandwidth) {
  return std::max(flops / rate, bandwidth > 0 ? bytes / bandwidth : 0.0);
}

void Fp32DotRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::string default_precision = ctx.launch->options.value("default_dot_input_precision", "tf32");
  double rtol = ctx.tolerance.is_object() ? ctx.tolerance.value("rtol", 0.0) : 0.0;
  for (const PyNode* dot : view.calls({"tl.dot"})) {
    const PyNode* a = argument(*dot, 0);
    const PyNode* b = argument(*dot, 1);
    if (!a || !b) continue;
    std::string ta = operand_type(view, *a), tb = operand_type(view, *b);
    if (ta != "fp32" || tb != "fp32") continue;
    std::string precision = default_precision, source = "launch default";
    if (const PyNode* p = keyword(*dot, "input_precision"); p && p->type == "Constant" && p->fields.value("value", nlohmann::json()).is_string()) {
      precision = p->fields.at("value").get<std::string>();
      source = "input_precision";
    } else if (const PyNode* t = keyword(*dot, "allow_tf32"); t && t->type == "Constant" && t->fields.value("value", nlohmann::json()).is_boolean()) {
      precision = t->fields.at("value").get<bool>() ? "tf32" : "ieee";
      source = "allow_tf32";
    }
    bool loose = rtol >= tf32_min_rtol_;
    std::string proposed;
    if (precision == "ieee") proposed = loose ? "tf32" : "tf32x3";
    else if ((precision == "tf32x3" || precision == "bf16x3") && loose) proposed = "tf32";
    if (proposed.empty()) continue;

    // Gain from the roofline: the task's FLOPs at each precision's peak, bounded by its bytes.
    std::optional<double> gain;
    if (ctx.target && ctx.flops > 0) {
      auto ceiling = [&](const char* k) {
        auto it = ctx.target->ceilings.find(k);
        return it == ctx.target->ceilings.end() ? 0.0 : it->second.value;
      };
      double fp32 = ceiling("fp32_flops"), tf32 = ceiling("tf32_flops"), hbm = ceiling("hbm_bytes_per_second");
      auto rate = [&](const std::string& p) { return p == "ieee" ? fp32 : p == "tf32" ? tf32 : tf32 / 3; };
      if (fp32 > 0 && tf32 > 0) {
        double now = roofline_time(double(ctx.flops), rate(precision), double(ctx.min_bytes), hbm);
        double then = roofline_time(double(ctx.flops), rate(proposed), double(ctx.min_bytes), hbm);
        if (then > 0 && now > then) gain = now / then;
      }
    }
    Finding f = finding_at(view, dot->line);
    f.symptom = precision == "ieee" ? "fp32 tl.dot in ieee precision runs on FMA units, not tensor cores"
                                    : fmt::format("fp32 tl.dot in {} issues three MMAs per product", precision);
    f.evidence.push_back(view.source(dot->line, fmt::format("{} = \"{}\"", source, precision)));
    for (const PyNode* op : {a, b})
      f.evidence.push_back(view.source(op->line, fmt::format("operand {} is fp32", view.text(*op))));
    f.evidence.push_back(view.launch_evidence(fmt::format(
        "tolerance rtol={}{}", rtol, ctx.flops > 0 ? fmt::format(", {:.3g} FLOPs", double(ctx.flops)) : std::string())));
    f.cause = precision == "ieee"
                  ? "tensor cores need tf32 for f32 x f32 (supportMMA), so an ieee dot lowers to FMA chains"
                  : fmt::format("{} splits each operand and issues three tensor-core MMAs per dot", precision);
    f.cause += loose ? fmt::format("; the tolerance (rtol={}) allows tf32's ~1e-3 relative error", rtol)
                     : fmt::format("; the tolerance (rtol={}) is tighter than tf32, so tf32x3 keeps accuracy", rtol);
    f.confidence = precision == "ieee" ? 0.8 : 0.65;
    f.estimated_gain = gain;
    f.proposals.push_back({"dot-input-precision", fmt::format("tl.dot(..., input_precision=\"{}\")", proposed),
                           {{"from", precision}, {"input_precision", proposed}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_fp32_dot_rule() { return std::make_unique<Fp32DotRule>(); }

}  // namespace tdx
