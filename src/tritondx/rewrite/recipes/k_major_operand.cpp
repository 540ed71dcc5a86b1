// k-major-operand: a tf32/fp8/int8 dot operand that is not K-contiguous in global memory is
// copied K-major before the launch, so wgmma reads it from shared memory without a transpose in
// registers and Triton pipelines its load.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/rewrite/recipes/statement_util.h"

namespace tdx {
namespace {

using l0::KernelView;

class KMajorOperandRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "k-major-operand"; }
  std::string_view description() const override {
    return "For Triton's remark that it transposes a dot operand in registers before the shared-memory "
           "store and disables that operand's pipelined load (wgmma reads tf32, fp8 and int8 operands only "
           "K-major; Triton recommends transposing the operand in global memory): the launch function "
           "rebinds the tensor passed for that operand's pointer to a K-major copy just before the launch, "
           "`b = b.transpose(-1, -2).contiguous().transpose(-1, -2)` for operand 1 (B [.., K, N] with K "
           "contiguous) or `a = a.contiguous()` for operand 0. Its shape and values are unchanged; the "
           "kernel sees the new layout through the strides the launch passes (a stride of 1 is "
           "specialized, so the compiler knows K is contiguous). The copy is part of every call and is "
           "timed with it. Refuses when the remark names no operand, the operand does not come from one "
           "tl.load, the launch passes the tensor other than as the pointer, x.stride(i), shape, size, "
           "numel, dtype or device, or passes fewer than two of its strides (the kernel would assume a "
           "layout), or the address does not use every stride passed. Proposed by l3-compiler-remark.";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

Expected<std::vector<TextEdit>> KMajorOperandRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  const int line = in.proposal.params.value("line", in.finding.loc.line);
  const int operand = in.proposal.params.value("operand", -1);
  auto refuse = [&](std::string why) -> Expected<std::vector<TextEdit>> { return fail(Stage::Rewrite, std::move(why), line); };
  if (!ctx.launch || !ctx.function || !ctx.task) return refuse("no captured launch");
  if (operand != 0 && operand != 1) return refuse("the remark does not say which dot operand is transposed");
  KernelView view(ctx);
  auto dots = recipe_util::kernel_calls_on_line(ctx, {"tl.dot"}, line);
  if (dots.size() != 1) return refuse(fmt::format("expected one tl.dot on line {}", line));
  const PyNode* arg = argument(*dots[0], operand);
  if (!arg) arg = keyword(*dots[0], operand == 0 ? "input" : "other");
  if (!arg) return refuse(fmt::format("the dot has no operand {}", operand));

  std::vector<const PyNode*> loads;
  view.visit_flow(*arg, [&](const PyNode& n) {
    if (n.type == "Call" && normalize_triton_name(call_name(n)) == "tl.load") {
      if (std::find(loads.begin(), loads.end(), &n) == loads.end()) loads.push_back(&n);
      return false;
    }
    return true;
  });
  if (loads.size() != 1) return refuse(fmt::format("operand {} comes from {} tl.load calls, not one", operand, loads.size()));
  const PyNode* pointer = KernelView::pointer_arg(*loads[0]);
  const std::string param = pointer ? view.root_pointer(*pointer) : "";
  if (param.empty()) return refuse("the operand's pointer parameter is not known");

  auto site = TDX_TRY(launch_util::find_launch(ctx, line));
  const PyNode* passed = launch_util::passed_argument(ctx, *site.call, param);
  if (!passed || passed->type != "Name") return refuse(fmt::format("{} is not passed a plain name", param));
  const std::string tensor = passed->str_field("id");

  // Every use of the tensor in the launch call: the pointer, its strides, or metadata.
  std::map<long long, std::string> strides;  // dimension -> the kernel parameter receiving it
  std::string failure;
  const auto params = stmt_util::kernel_params(ctx);
  PyModule::walk(*site.call, [&](const PyNode& n) {
    if (!failure.empty() || !recipe_util::is_name(&n, tensor) || &n == passed) return;
    const PyNode* parent = n.parent;
    std::string attr = parent && parent->type == "Attribute" ? parent->str_field("attr") : "";
    if (attr == "shape" || attr == "dtype" || attr == "device") return;
    const PyNode* call = parent ? parent->parent : nullptr;
    if ((attr == "size" || attr == "numel") && call && call->type == "Call") return;
    if (attr == "stride" && call && call->type == "Call" && argument(*call, 0)) {
      auto d = int_constant(*argument(*call, 0));
      if (!d) {
        failure = "a stride of a non-constant dimension is passed";
        return;
      }
      for (const auto& p : params)
        if (launch_util::passed_argument(ctx, *site.call, p) == call) strides[*d] = p;
      return;
    }
    failure = fmt::format("the launch passes `{}` other than as the pointer, its strides or metadata",
                          recipe_util::text(ctx, *(call && call->type == "Call" ? call : &n)));
  });
  if (!failure.empty()) return refuse(failure);
  if (strides.size() < 2)
    return refuse(fmt::format("the launch passes {} stride(s) of `{}`: the kernel assumes a layout", strides.size(), tensor));
  for (const auto& [d, p] : strides)
    if (!view.flows_from(*pointer, [&](const PyNode& n) { return recipe_util::is_name(&n, p); }))
      return refuse(fmt::format("the operand's address does not use {} (`{}.stride({})`)", p, tensor, d));

  const PyNode* stmt = PyModule::enclosing_statement(*site.call);
  if (!stmt || stmt->parent != site.enclosing) return refuse("the launch call is not a top-level statement of the launch function");
  const std::string copy = operand == 1 ? fmt::format("{0}.transpose(-1, -2).contiguous().transpose(-1, -2)", tensor)
                                        : fmt::format("{}.contiguous()", tensor);
  return std::vector<TextEdit>{TextEdit::insert_lines(
      stmt->line, fmt::format("{0}{1} = {2}  # K-major copy: wgmma reads it without a transpose\n",
                              indentation_of(ctx.task->source, stmt->line), tensor, copy))};
}

}  // namespace

std::unique_ptr<Recipe> make_k_major_operand_recipe() { return std::make_unique<KMajorOperandRecipe>(); }

}  // namespace tdx
