// l0-scalar-python-loop: a loop that loads one element per iteration where a block would do.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class ScalarPythonLoopRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-scalar-python-loop"; }
  std::string_view description() const override {
    return "A `for` loop inside the kernel loads (or stores) a single element per iteration: the "
           "address is a scalar (no tl.arange) that depends on the loop variable, e.g. "
           "`for i in range(n): acc += tl.load(x_ptr + i)`. Each iteration is one scalar, dependent "
           "global access, so the loop runs at memory latency instead of bandwidth and uses one "
           "thread's worth of work per instruction; one block access (`tl.arange` + mask, then "
           "tl.sum) does the same with wide, parallel loads.";
  }
  nlohmann::json options() const override { return {{"min_iterations", min_iterations_}, {"max_block", max_block_}}; }
  void configure(const nlohmann::json& o) override {
    min_iterations_ = o.value("min_iterations", min_iterations_);
    max_block_ = o.value("max_block", max_block_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  long long min_iterations_ = 8;
  long long max_block_ = 1024;
};

bool is_scalar_shape(const std::optional<std::vector<long long>>& s) {
  if (!s) return false;
  for (long long d : *s)
    if (d != 1) return false;
  return true;
}

void ScalarPythonLoopRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<const PyNode*> reported;
  for (const PyNode* op : view.calls({"tl.load", "tl.store", "tl.atomic_add"})) {
    const PyNode* ptr = KernelView::pointer_arg(*op);
    if (!ptr || !is_scalar_shape(view.shape(*ptr))) continue;
    // The innermost enclosing loop whose variable the address reads.
    const PyNode* loop = nullptr;
    for (const PyNode* l = PyModule::enclosing_loop(*op); l && !loop; l = PyModule::enclosing_loop(*l)) {
      if (l->type != "For") continue;
      const PyNode* target = l->child("target");
      if (!target || target->type != "Name") continue;
      std::string var = target->str_field("id");
      if (view.flows_from(*ptr, [&](const PyNode& n) {
            if (n.type != "Name" || n.str_field("id") != var) return false;
            const Definition* d = view.definition(n);
            return d && d->stmt == l;
          }))
        loop = l;
    }
    if (!loop || std::find(reported.begin(), reported.end(), loop) != reported.end()) continue;
    auto trips = view.trip_count(*loop);
    if (trips && *trips < min_iterations_) continue;
    reported.push_back(loop);

    long long block = trips ? std::min(max_block_, next_pow2(*trips)) : max_block_;
    std::string kind = call_name(*op) == "tl.load" ? "load" : "store";
    Finding f = finding_at(view, loop->line);
    f.symptom = trips ? fmt::format("loop of {} iterations with one scalar {} each", *trips, kind)
                      : fmt::format("loop with one scalar {} per iteration", kind);
    f.evidence.push_back(view.source(loop->line, trips ? fmt::format("{} iterations for the captured launch", *trips)
                                                       : std::string("trip count unknown at L0")));
    f.evidence.push_back(view.source(op->line, fmt::format("scalar address {}: one element per iteration",
                                                           view.text(*ptr))));
    if (const PyNode* iter = loop->child("iter"))
      if (auto values = view.launch_values(*iter); !values.empty()) f.evidence.push_back(view.launch_evidence(values));
    f.cause = "each iteration issues one dependent scalar global access, so the loop is bound by memory latency "
              "and uses a single element per instruction instead of a vector of lanes";
    f.confidence = trips ? 0.75 : 0.55;
    f.proposals.push_back({kAdvice,
                           fmt::format("replace the loop with one block of {} lanes: offs = tl.arange(0, {}), a "
                                       "masked tl.{} and a tl.sum/tl.max over the block (loop over blocks if larger)",
                                       block, block, kind),
                           {{"block", block}, {"iterations", trips ? nlohmann::json(*trips) : nlohmann::json()}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_scalar_python_loop_rule() { return std::make_unique<ScalarPythonLoopRule>(); }

}  // namespace tdx
