// integrity-precision-downgrade: the candidate computes in a lower-precision format than the
// original (casts to fp16/bf16/fp8, tf32 dots) by more than the task's tolerance allows.
//
// The rule (docs/integrity.md): every format the source names gets its unit roundoff u
// (tf32 and fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4, fp8 e5m2 2^-3; fp32 and wider count as
// exact here). A tl.dot without input_precision/allow_tf32=False counts as tf32 (Triton's
// default for fp32 operands). Let u_orig be the largest u the original names (0 if none).
// A candidate format F is a downgrade when u(F) > u_orig and u(F) > rtol, rtol being the
// original's TOLERANCE["rtol"], or when it has none, the default rtol for the original's
// weakest dtype (fp32 1e-4, fp16 1e-2, bf16 2e-2).
#include <cmath>
#include <optional>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

struct Format {
  std::string_view name;
  double u;
};

constexpr Format kTf32{"tf32", 0x1p-11}, kFp16{"fp16", 0x1p-11}, kBf16{"bf16", 0x1p-8},
    kFp8e4{"fp8 e4m3", 0x1p-4}, kFp8e5{"fp8 e5m2", 0x1p-3};

std::optional<Format> format_of_name(std::string_view name) {
  if (name == "torch.float16" || name == "torch.half" || name == "triton.language.float16") return kFp16;
  if (name == "torch.bfloat16" || name == "triton.language.bfloat16") return kBf16;
  if (name.starts_with("torch.float8_e4m3") || name.starts_with("triton.language.float8e4")) return kFp8e4;
  if (name.starts_with("torch.float8_e5m2") || name.starts_with("triton.language.float8e5")) return kFp8e5;
  return std::nullopt;
}

struct Use {
  Format format;
  int line;
  std::string what;
};

std::optional<Format> dot_precision(const ModuleFacts& facts, const PyNode& call) {
  const PyNode* precision = keyword(call, "input_precision");
  if (precision && precision->type == "Constant") {
    std::string p = precision->str_field("value");
    if (p == "tf32") return kTf32;
    return std::nullopt;  // ieee, tf32x3, bf16x3: fp32-grade
  }
  if (precision) return kTf32;  // computed: assume the weakest
  const PyNode* allow = keyword(call, "allow_tf32");
  if (allow && allow->type == "Constant" && allow->fields.value("value", nlohmann::json()) == false)
    return std::nullopt;
  return kTf32;
}

std::vector<Use> format_uses(const ModuleFacts& facts) {
  std::vector<Use> out;
  PyModule::walk(facts.module().root(), [&](const PyNode& n) {
    if (ModuleFacts::is_chain_top(n)) {
      std::string name = facts.resolve(n);
      if (auto f = format_of_name(name)) out.push_back({*f, n.line, "`" + name + "`"});
    }
    if (n.type != "Call") return;
    std::string callee = facts.resolve_call(n);
    if (callee == "triton.language.dot")
      if (auto f = dot_precision(facts, n)) out.push_back({*f, n.line, "tl.dot in " + std::string(f->name)});
    const PyNode* func = n.child("func");
    if (func && func->type == "Attribute") {
      std::string attr = func->str_field("attr");
      if (attr == "half") out.push_back({kFp16, n.line, "`.half()`"});
      if (attr == "bfloat16") out.push_back({kBf16, n.line, "`.bfloat16()`"});
    }
  });
  return out;
}

std::optional<double> tolerance_rtol(const ModuleFacts& facts) {
  for (const auto& stmt : facts.module().root().children) {
    if (stmt.type != "Assign") continue;
    const PyNode* target = stmt.child("targets", 0);
    const PyNode* value = stmt.child("value");
    if (!target || target->str_field("id") != kToleranceName || !value || value->type != "Dict") continue;
    auto keys = value->children_in("keys");
    auto values = value->children_in("values");
    for (size_t i = 0; i < keys.size() && i < values.size(); ++i)
      if (keys[i]->str_field("value") == "rtol")
        if (auto v = number_constant(*values[i])) return *v;
  }
  return std::nullopt;
}

}  // namespace

void check_precision(const CheckContext& ctx, Sink& sink) {
  double u_orig = 0;
  for (const auto& use : format_uses(ctx.original)) u_orig = std::max(u_orig, use.format.u);
  double rtol = tolerance_rtol(ctx.original).value_or(u_orig >= kBf16.u ? 2e-2 : u_orig >= kFp16.u ? 1e-2 : 1e-4);
  for (const auto& use : format_uses(ctx.candidate)) {
    if (use.format.u <= u_orig || use.format.u <= rtol) continue;
    sink.report("integrity-precision-downgrade", use.line,
                fmt::format("{} computes in {} (unit roundoff {:.2g}) where the original stays at {}; the task's "
                            "rtol {:.2g} does not allow it",
                            use.what, use.format.name, use.format.u,
                            u_orig == 0 ? std::string("fp32 or wider") : fmt::format("u = {:.2g}", u_orig), rtol));
  }
}

}  // namespace tdx::integrity
