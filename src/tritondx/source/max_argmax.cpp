#include "tritondx/source/max_argmax.h"

#include <tuple>

namespace tdx::l0 {
namespace {

std::string keyword_text(const KernelView& view, const PyNode& call, std::string_view name) {
  const PyNode* k = keyword(call, name);
  return k ? view.squashed_text(*k) : "";
}

}  // namespace

const PyNode* reduced_operand(const PyNode& call) {
  if (const PyNode* a = argument(call, 0)) return a;
  return keyword(call, "input");
}

std::string reduction_axis(const KernelView& view, const PyNode& call) {
  const PyNode* a = argument(call, 1);
  if (!a) a = keyword(call, "axis");
  return a ? view.squashed_text(*a) : "";
}

std::vector<ReductionPair> separate_value_index_reductions(const KernelView& view) {
  std::vector<ReductionPair> out;
  for (std::string_view reduction : {"max", "min"}) {
    auto values = view.calls({reduction == "max" ? "tl.max" : "tl.min"});
    auto indices = view.calls({reduction == "max" ? "tl.argmax" : "tl.argmin"});
    for (const PyNode* v : values) {
      // A value reduction that already returns indices, or one combined with a custom function.
      if (keyword(*v, "return_indices") || argument(*v, 2)) continue;
      const PyNode* operand = reduced_operand(*v);
      const PyNode* vstmt = PyModule::enclosing_statement(*v);
      if (!operand || !vstmt || reduction_axis(view, *v).empty()) continue;
      for (const PyNode* i : indices) {
        const PyNode* ioperand = reduced_operand(*i);
        const PyNode* istmt = PyModule::enclosing_statement(*i);
        if (!ioperand || !istmt || istmt == vstmt || istmt->parent != vstmt->parent || istmt->field != vstmt->field)
          continue;
        if (view.squashed_text(*operand) != view.squashed_text(*ioperand) ||
            reduction_axis(view, *v) != reduction_axis(view, *i) ||
            keyword_text(view, *v, "keep_dims") != keyword_text(view, *i, "keep_dims"))
          continue;
        // The operand holds the same values at both calls.
        bool same = true;
        for (const auto& name : PyModule::names_read(*operand))
          if (view.definition_at(name, v->line, v->col) != view.definition_at(name, i->line, i->col)) same = false;
        if (!same) continue;
        out.push_back({v, i, vstmt, istmt, std::string(reduction)});
        break;
      }
    }
  }
  return out;
}

}  // namespace tdx::l0
