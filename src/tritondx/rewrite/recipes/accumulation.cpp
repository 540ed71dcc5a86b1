#include "tritondx/rewrite/recipes/accumulation.h"

#include <algorithm>

#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/source/accumulator_update.h"

namespace tdx::accumulation {

std::optional<Accumulation> of(const PyNode& stmt) {
  auto u = l0::accumulator_update(stmt);
  if (!u || PyModule::names_read(*u->value).contains(u->acc)) return std::nullopt;
  return Accumulation{&stmt, u->acc, std::string(l0::loop_reduction_name(u->kind)), u->value};
}

bool is_block(const PyNode& init) {
  if (init.type != "Call") return false;
  std::string name = normalize_triton_name(call_name(init));
  return name == "tl.zeros" || name == "tl.full";
}

bool is_identity(const KernelContext& ctx, const PyNode& init, std::string_view kind) {
  if (is_block(init)) {
    bool zeros = normalize_triton_name(call_name(init)) == "tl.zeros";
    const PyNode* dtype = keyword(init, "dtype") ? keyword(init, "dtype") : argument(init, zeros ? 1 : 2);
    // tl.zeros defaults to fp32; tl.full has no default.
    if (dtype ? normalize_triton_name(dotted_name(*dtype)) != "tl.float32" : !zeros) return false;
    if (zeros) return kind == "sum";
    const PyNode* fill = argument(init, 1) ? argument(init, 1) : keyword(init, "value");
    return fill && !is_block(*fill) && is_identity(ctx, *fill, kind);
  }
  std::string t = recipe_util::squash(recipe_util::text(ctx, init));
  std::replace(t.begin(), t.end(), '\'', '"');
  if (kind == "max") return t == "-float(\"inf\")" || t == "float(\"-inf\")" || t == "-math.inf";
  if (kind == "min") return t == "float(\"inf\")" || t == "math.inf";
  if (auto v = number_constant(init)) return *v == 0.0;
  return false;
}

}  // namespace tdx::accumulation
