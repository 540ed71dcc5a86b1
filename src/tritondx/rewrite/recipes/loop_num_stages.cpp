// loop-num-stages: iterate the loop the finding points at with tl.range(..., num_stages=S).
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class LoopNumStagesRecipe final : public Recipe {
 public:
  // With `from_launch`, a loop with a dot under a launch num_stages <= 1 gets the stages at the
  // launch call instead (pipeline-loop).
  explicit LoopNumStagesRecipe(bool from_launch) : from_launch_(from_launch) {}
  std::string_view id() const override { return from_launch_ ? "pipeline-loop" : "loop-num-stages"; }
  std::string_view description() const override {
    if (from_launch_)
      return "Pipelines the loop the finding points at, choosing where the stage count goes: a loop with a "
             "tl.dot under a launch whose num_stages <= 1 gets num_stages=S on the launch call (as "
             "set-num-stages), any other loop `tl.range(..., num_stages=S)` (as loop-num-stages). Proposed by "
             "l2-unpipelined-loop.";
    return "Gives the loop the finding points at its own pipelining depth: `for i in range(a, b, s)` becomes "
           "`for i in tl.range(a, b, s, num_stages=S)` (an existing tl.range gets or changes its num_stages "
           "keyword), with S from the proposal. Triton writes `tt.num_stages` on that loop, which is what "
           "lets TritonGPUAssignLatencies pipeline the loads of a loop without a dot (pipelineWithoutDot) "
           "and overrides the launch's num_stages for this loop only. Proposed by l3-loop-not-pipelined. "
           "Refuses tl.static_range loops, loops over anything but range/tl.range, and stage counts outside "
           "2..8.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;

 private:
  bool from_launch_;
};

Expected<std::vector<TextEdit>> LoopNumStagesRecipe::edits(const RecipeInput& in) const {
  const auto& params = in.proposal.params;
  int line = params.value("line", in.finding.loc.line);
  if (!params.contains("num_stages") || !params["num_stages"].is_number_integer())
    return fail(Stage::Rewrite, "the proposal names no num_stages value", line);
  long long stages = params["num_stages"].get<long long>();
  if (stages < 2 || stages > 8) return fail(Stage::Rewrite, fmt::format("num_stages={} is out of range", stages), line);
  if (!in.ctx.function) return fail(Stage::Rewrite, "no kernel AST", line);
  std::string value = std::to_string(stages);
  const PyNode* loop = recipe_util::kernel_loop_on_line(in.ctx, line);
  if (!loop) return fail(Stage::Rewrite, fmt::format("no for loop at line {} of the kernel", line), line);
  if (from_launch_ && in.ctx.launch && in.ctx.launch->num_stages() <= 1 &&
      !PyModule::calls(*loop, {"tl.dot", "triton.language.dot"}).empty()) {
    if (auto refusal = launch_util::refuse_wrapped(in.ctx, line)) return std::unexpected(*refusal);
    auto site = TDX_TRY(launch_util::find_launch(in.ctx, line));
    return std::vector<TextEdit>{launch_util::set_keyword(*site.call, "num_stages", value)};
  }
  if (from_launch_ && in.ctx.launch && !PyModule::calls(*loop, {"tl.dot", "triton.language.dot"}).empty() &&
      in.ctx.launch->num_stages() >= stages)
    return fail(Stage::Rewrite,
                fmt::format("the launch already asks for num_stages={}: this dot loop is not pipelined for another "
                            "reason (see l3-loop-not-pipelined)",
                            in.ctx.launch->num_stages()),
                line);
  const PyNode* iter = loop->child("iter");
  if (!iter || iter->type != "Call") return fail(Stage::Rewrite, "the loop does not iterate over range(...)", line);
  std::string callee = normalize_triton_name(call_name(*iter));
  if (callee == "range") {
    if (!iter->children_in("keywords").empty())
      return fail(Stage::Rewrite, "range(...) with keyword arguments", line);
    const PyNode* func = iter->child("func");
    return std::vector<TextEdit>{TextEdit::replace(*func, launch_util::tl_prefix(in.ctx) + ".range"),
                                 launch_util::set_keyword(*iter, "num_stages", value)};
  }
  if (callee == "tl.range") {
    if (const PyNode* cur = keyword(*iter, "num_stages"); cur && int_constant(*cur) == stages)
      return fail(Stage::Rewrite, fmt::format("the loop already has num_stages={}", stages), line);
    return std::vector<TextEdit>{launch_util::set_keyword(*iter, "num_stages", value)};
  }
  if (callee == "tl.static_range")
    return fail(Stage::Rewrite, "tl.static_range is unrolled at compile time: there is no loop to pipeline", line);
  return fail(Stage::Rewrite, fmt::format("the loop iterates over {}(...), not range or tl.range", callee), line);
}

}  // namespace

std::unique_ptr<Recipe> make_loop_num_stages_recipe() { return std::make_unique<LoopNumStagesRecipe>(false); }
std::unique_ptr<Recipe> make_pipeline_loop_recipe() { return std::make_unique<LoopNumStagesRecipe>(true); }

}  // namespace tdx
