// l0-serial-loop-small-grid: fewer programs than SMs, each walking a long loop serially.
#include <algorithm>

#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class SerialLoopSmallGridRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-serial-loop-small-grid"; }
  std::string_view description() const override {
    return "The captured launch has fewer programs than the GPU has SMs, and each program runs a long "
           "loop (at least min_iterations trips) at the kernel's top level: the work the GPU could run in "
           "parallel sits in one program's serial loop, e.g. a column reduction with one program per "
           "64 columns walking all 65,536 rows. Most SMs idle and each busy one streams with the few "
           "loads one program keeps in flight. Splitting the loop's range over a second grid axis (and "
           "combining the partial results) gives every SM work.";
  }
  nlohmann::json options() const override {
    return {{"min_iterations", min_iterations_}, {"min_iterations_per_split", min_iterations_per_split_}};
  }
  void configure(const nlohmann::json& o) override {
    min_iterations_ = o.value("min_iterations", min_iterations_);
    min_iterations_per_split_ = o.value("min_iterations_per_split", min_iterations_per_split_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  long long min_iterations_ = 64;
  long long min_iterations_per_split_ = 8;
};

void SerialLoopSmallGridRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  const long long programs = view.launch().programs();
  const int sms = ctx.target && ctx.target->sm_count > 0 ? ctx.target->sm_count : 132;
  if (programs <= 0 || programs >= sms) return;
  for (const PyNode* stmt : view.function().children_in("body")) {
    if (stmt->type != "For") continue;
    auto trips = view.trip_count(*stmt);
    if (!trips || *trips < min_iterations_) continue;
    // Enough splits for two programs per SM, each still running min_iterations_per_split trips.
    long long split = 2;
    while (programs * split < 2LL * sms && *trips / (split * 2) >= min_iterations_per_split_) split *= 2;
    Finding f = finding_at(view, stmt->line);
    f.symptom = fmt::format("{} program(s) for {} SMs, each looping {} times", programs, sms, *trips);
    f.evidence.push_back(view.launch_evidence(fmt::format("{} programs", programs)));
    f.evidence.push_back(view.source(stmt->line, fmt::format("{} iterations per program for the captured launch; {}",
                                                             *trips, view.launch_values(*stmt->child("iter")))));
    f.cause = fmt::format("the grid leaves {} of {} SMs without a program, and each program's {} iterations run one "
                          "after another: the loop, not the grid, holds the parallelism",
                          sms - programs, sms, *trips);
    f.confidence = programs * 4 <= sms ? 0.8 : 0.6;
    f.proposals.push_back({"split-reduction",
                           fmt::format("split the loop's range over a second grid axis of {} programs and sum their "
                                       "partial results in a second kernel ({} programs)",
                                       split, programs * split),
                           {{"loop_line", stmt->line}, {"split", split}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_serial_loop_small_grid_rule() { return std::make_unique<SerialLoopSmallGridRule>(); }

}  // namespace tdx
