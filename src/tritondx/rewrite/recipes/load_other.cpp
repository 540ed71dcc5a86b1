// load-other: give a masked tl.load feeding max/min the reduction's identity as `other=`.
#include <fmt/format.h>

#include "tritondx/source/kernel_view.h"
#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {
namespace {

class LoadOtherRecipe final : public Recipe {
 public:
  std::string_view id() const override { return "load-other"; }
  std::string_view description() const override {
    return "Adds `other=<identity>` to a masked tl.load whose masked lanes reach a max/min reduction "
           "(l0-load-without-other-in-reduction): -float(\"inf\") before tl.max/tl.argmax, float(\"inf\") "
           "before tl.min/tl.argmin, and the integer type's lowest/highest value when the pointer is "
           "integer. The masked lanes then cannot win the reduction, so partly masked blocks reduce "
           "correctly; the cost is nothing (the select is already part of a masked load).";
  }
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
};

// The identity of max (or min) for a Triton element type name, "" if not numeric.
std::string identity(std::string_view type, bool max, const std::string& float_identity) {
  if (type.starts_with("fp") || type.starts_with("bf")) return float_identity;
  struct Int {
    std::string_view name;
    const char* lo;
    const char* hi;
  };
  static constexpr Int kInts[] = {{"i8", "-128", "127"},
                                  {"i16", "-32768", "32767"},
                                  {"i32", "-2147483648", "2147483647"},
                                  {"i64", "-9223372036854775808", "9223372036854775807"},
                                  {"u8", "0", "255"},
                                  {"u16", "0", "65535"},
                                  {"u32", "0", "4294967295"},
                                  {"u64", "0", "18446744073709551615"}};
  for (const auto& i : kInts)
    if (type == i.name) return max ? i.lo : i.hi;
  return {};
}

Expected<std::vector<TextEdit>> LoadOtherRecipe::edits(const RecipeInput& in) const {
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  if (!ctx.launch) return fail(Stage::Rewrite, "no captured launch", line);
  std::string reduction = in.proposal.params.value("reduction", "");
  bool max = reduction == "tl.max" || reduction == "tl.argmax";
  if (!max && reduction != "tl.min" && reduction != "tl.argmin")
    return fail(Stage::Rewrite, fmt::format("no identity for reduction \"{}\" as an `other`", reduction), line);
  l0::KernelView view(ctx);
  std::vector<TextEdit> edits;
  for (const PyNode* load : recipe_util::kernel_calls_on_line(ctx, {"tl.load"}, line)) {
    if (!l0::KernelView::mask_arg(*load) || l0::KernelView::other_arg(*load)) continue;
    std::string type = view.pointee_type(view.root_pointer(*l0::KernelView::pointer_arg(*load)));
    std::string other = identity(type, max, in.proposal.params.value("other", max ? "-float(\"inf\")" : "float(\"inf\")"));
    if (other.empty())
      return fail(Stage::Rewrite, fmt::format("unknown element type \"{}\" of the loaded pointer", type), line);
    edits.push_back(TextEdit::insert_after(*last_argument(*load), ", other=" + other));
  }
  if (edits.empty()) return fail(Stage::Rewrite, "no masked tl.load without other= on the finding's line", line);
  return edits;
}

}  // namespace

std::unique_ptr<Recipe> make_load_other_recipe() { return std::make_unique<LoadOtherRecipe>(); }

}  // namespace tdx
