// l0-one-program-per-element: the grid launches one program per element (or per tiny chunk).
#include <set>

#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class OneProgramPerElementRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-one-program-per-element"; }
  std::string_view description() const override {
    return "The kernel's largest memory access moves at most max_elements elements per program (no "
           "tl.arange, or a block of 1-4) while the captured grid launches at least min_programs "
           "programs: the grid enumerates the elements. Every program pays launch, scheduling and "
           "index overhead for a few bytes, and its 128 threads run one element. A block of "
           "elements per program (offs = pid * BLOCK + tl.arange(0, BLOCK), grid = cdiv(n, BLOCK)) "
           "does the same work with a thousandth of the programs and wide accesses.";
  }
  nlohmann::json options() const override {
    return {{"max_elements", max_elements_}, {"min_programs", min_programs_}, {"block", block_}};
  }
  void configure(const nlohmann::json& o) override {
    max_elements_ = o.value("max_elements", max_elements_);
    min_programs_ = o.value("min_programs", min_programs_);
    block_ = o.value("block", block_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  long long max_elements_ = 4;
  long long min_programs_ = 1024;
  long long block_ = 1024;
};

void OneProgramPerElementRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  auto tile = largest_tile(view);
  long long programs = ctx.launch->programs();
  if (!tile || tile->elements > max_elements_ || programs < min_programs_) return;
  // A program that loops over its elements is l0-scalar-python-loop's case, not this one.
  for (const PyNode* op : view.calls({"tl.load", "tl.store"}))
    if (PyModule::enclosing_loop(*op)) return;
  auto pids = view.calls({"tl.program_id"});
  int line = pids.empty() ? ctx.function->line : pids.front()->line;
  long long total = programs * tile->elements;
  long long proposed = std::min(block_, next_pow2(std::max(total, 1LL)));

  Finding f = finding_at(view, line);
  f.symptom = fmt::format("{} programs of {} element(s) each", programs, tile->elements);
  if (!pids.empty()) f.evidence.push_back(view.source(line, "the program id indexes single elements"));
  f.evidence.push_back(view.source(tile->memop->line, fmt::format("largest access: {} element(s) per program",
                                                                    tile->elements)));
  std::string grid;
  for (long long g : ctx.launch->grid) grid += (grid.empty() ? "" : ", ") + std::to_string(g);
  f.evidence.push_back(view.launch_evidence(fmt::format("grid ({}), {} warps per program", grid, ctx.launch->num_warps())));
  f.cause = fmt::format("{} programs each move {} element(s): per-program overhead dominates and {} threads per "
                        "program have one element between them",
                        programs, tile->elements, ctx.launch->num_warps() * 32);
  f.confidence = 0.8;
  // The constexpr that sizes the tiny block (`tl.arange(0, BLOCK)` with BLOCK = the tile): grow-block
  // sets it and the grid follows. A kernel without one (scalar accesses by program id) gets advice.
  std::set<std::string> sizing;
  for (const PyNode* arange : view.calls({"tl.arange"}))
    if (const PyNode* end = argument(*arange, 1); end && end->type == "Name")
      if (auto v = view.value(*end); v && *v == tile->elements) sizing.insert(end->str_field("id"));
  RecipeId recipe = sizing.size() == 1 ? RecipeId("grow-block") : kAdvice;
  nlohmann::json params = {{"block", proposed}, {"elements", total}, {"programs", (total + proposed - 1) / proposed}};
  if (sizing.size() == 1) {
    params["constexpr"] = *sizing.begin();
    params["from"] = tile->elements;
  }
  f.proposals.push_back({recipe,
                         fmt::format("process BLOCK={} elements per program with tl.arange and a mask; grid = "
                                     "cdiv({}, {}) = {}",
                                     proposed, total, proposed, (total + proposed - 1) / proposed),
                         std::move(params)});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_one_program_per_element_rule() { return std::make_unique<OneProgramPerElementRule>(); }

}  // namespace tdx
