// sum-in-kernel: a kernel stores values into a buffer that its launch function only sums; each
// program sums them instead and stores one partial, and the launch function sums the partials.
#include <fmt/format.h>

#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/source/host_summed_store.h"

namespace tdx {
namespace {

using l0::KernelView;

constexpr const char* kPartials = "sum_partials";
constexpr const char* kTotal = "sum_total";

class SumInKernelRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "sum-in-kernel"; }
  std::string_view description() const override {
    return "For a kernel whose one store through a pointer parameter writes into a buffer that the launch "
           "function allocates (torch.zeros/empty(_like)) and afterwards only sums (torch.sum(buffer), "
           "buffer.sum()): the store becomes `sum_total += tl.sum(tl.where(mask, value, 0.0).to(tl.float32))` "
           "(sum_total = 0.0 at the kernel's start), each program stores its sum_total into an fp32 buffer "
           "sum_partials of one value per program (before every return and at the end), the launch function "
           "sums sum_partials in place of the buffer (cast to its dtype), and the buffer becomes one zero "
           "expanded to its shape, so its strides still reach the launch. The sum's order changes (fp32 "
           "partials per program). Refuses a buffer used other than by one full sum after the launch, a "
           "parameter the kernel also loads from or updates atomically, a second store through it, and a "
           "grid that is not a tuple written at the launch. Proposed by l0-host-summed-output.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// `torch.zeros(SIZE..., KW...)` -> `torch.zeros(1, KW...).expand(SIZE...)`; the *_like forms
// take their shape, dtype and device from their tensor.
std::string one_zero_expanded(const KernelContext& ctx, const PyNode& alloc) {
  const std::string name = call_name(alloc);
  std::vector<std::string> shape, keywords;
  for (const PyNode* a : alloc.children_in("args")) shape.push_back(recipe_util::text(ctx, *a));
  bool dtype = false, device = false;
  for (const PyNode* k : alloc.children_in("keywords")) {
    const std::string arg = k->str_field("arg");
    if (arg == "size" || arg == "out" || arg == "memory_format" || arg.empty()) continue;
    dtype |= arg == "dtype";
    device |= arg == "device";
    const PyNode* v = k->child("value");
    keywords.push_back(fmt::format("{}={}", arg, v ? recipe_util::text(ctx, *v) : ""));
  }
  if (name.ends_with("_like") && !shape.empty()) {
    const std::string like = shape.front();
    if (!dtype) keywords.push_back(fmt::format("dtype={}.dtype", like));
    if (!device) keywords.push_back(fmt::format("device={}.device", like));
    shape = {like + ".shape"};
  }
  std::string kw;
  for (const auto& k : keywords) kw += ", " + k;
  std::string dims;
  for (const auto& s : shape) dims += (dims.empty() ? "" : ", ") + s;
  return fmt::format("torch.zeros(1{}).expand({})", kw, dims);
}

Expected<std::vector<TextEdit>> SumInKernelRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.finding.loc.line;
  const std::string param = in.proposal.params.value("param", std::string());
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task || !ctx.ast) return refuse("no captured launch");
  if (param.empty()) return refuse("the proposal names no pointer parameter");
  if (auto refusal = launch_util::refuse_wrapped(ctx, line)) return std::unexpected(*refusal);
  KernelView view(ctx);
  auto found = l0::host_summed_store(view, param);
  if (!found) return refuse(found.error());
  const auto& h = *found;
  for (const char* name : {kPartials, kTotal})
    if (view.binds(name) || ctx.task->source.find(name) != std::string::npos)
      return refuse(fmt::format("the task already uses the name {}", name));
  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  if (site.call != h.launch_call) return refuse("the launch the capture recorded is not the one the analysis found");
  const PyNode* grid = launch_util::grid_expression(site);
  if (!grid || grid->type != "Tuple" || grid->children_in("elts").empty() || grid->children_in("elts").size() > 3)
    return refuse("the grid is not a tuple of one to three dimensions written in the launch function");
  const PyNode* launch_stmt = PyModule::enclosing_statement(*site.call);
  if (!launch_stmt) return refuse("the launch call is not a statement");

  const std::string tl = launch_util::tl_prefix(ctx);
  const PyNode& fn = view.function();
  const std::string body_ind = indentation_of(ctx.task->source, fn.children_in("body").front()->line);
  std::vector<TextEdit> edits;

  // The kernel: the running total, the store replaced, one partial stored at every exit.
  const auto body = fn.children_in("body");
  const PyNode* first = body.front();
  const bool docstring = first->type == "Expr" && first->child("value") && first->child("value")->type == "Constant" &&
                         first->child("value")->fields.value("value", nlohmann::json()).is_string();
  const int start_line = docstring ? first->end_line + 1 : first->line;
  edits.push_back(TextEdit::insert_lines(start_line, fmt::format("{}{} = 0.0\n", body_ind, kTotal)));

  const PyNode* value = argument(*h.store, 1) ? argument(*h.store, 1) : keyword(*h.store, "value");
  if (!value) return refuse("the store has no value argument");
  const PyNode* mask = KernelView::mask_arg(*h.store);
  const std::string summed = mask ? fmt::format("{0}.where({1}, {2}, 0.0)", tl, recipe_util::text(ctx, *mask),
                                                recipe_util::text(ctx, *value))
                                  : fmt::format("({})", recipe_util::text(ctx, *value));
  const PyNode* store_stmt = PyModule::enclosing_statement(*h.store);
  edits.push_back(TextEdit::replace(*store_stmt, fmt::format("{} += {}.sum({}.to({}.float32))", kTotal, tl, summed, tl)));

  const auto dims = grid->children_in("elts");
  std::string program = fmt::format("{}.program_id(0)", tl);
  if (dims.size() >= 2) program += fmt::format(" + {0}.program_id(1) * {0}.num_programs(0)", tl);
  if (dims.size() == 3) program += fmt::format(" + {0}.program_id(2) * {0}.num_programs(0) * {0}.num_programs(1)", tl);
  const std::string partial = fmt::format("{}.store({} + {}, {})", tl, kPartials, program, kTotal);
  bool ends_in_return = false;
  PyModule::walk(fn, [&](const PyNode& n) {
    if (n.type != "Return") return;
    edits.push_back(TextEdit::insert_lines(n.line, indentation_of(ctx.task->source, n.line) + partial + "\n"));
    ends_in_return |= &n == body.back();
  });
  if (!ends_in_return) edits.push_back(TextEdit::insert_lines(fn.end_line + 1, body_ind + partial + "\n"));
  edits.push_back(TDX_TRY(launch_util::append_params(ctx, kPartials, line)));

  // The launch function: the partials, passed to the kernel and summed; the buffer one zero.
  std::string programs;
  for (const PyNode* d : dims)
    programs += dims.size() == 1 ? recipe_util::text(ctx, *d)
                                 : (programs.empty() ? "" : " * ") + fmt::format("({})", recipe_util::text(ctx, *d));
  edits.push_back(TextEdit::insert_lines(
      launch_stmt->line,
      fmt::format("{}{} = torch.zeros({}, dtype=torch.float32, device={}.device)\n",
                  indentation_of(ctx.task->source, launch_stmt->line), kPartials, programs, h.buffer)));
  edits.push_back(launch_util::set_keyword(*site.call, kPartials, kPartials));
  edits.push_back(TextEdit::replace(*h.allocation->child("value"), one_zero_expanded(ctx, *h.allocation->child("value"))));
  edits.push_back(TextEdit::replace(*h.sum, fmt::format("{}.sum().to({}.dtype)", kPartials, h.buffer)));
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_sum_in_kernel_recipe() { return std::make_unique<SumInKernelRecipe>(); }

}  // namespace tdx
