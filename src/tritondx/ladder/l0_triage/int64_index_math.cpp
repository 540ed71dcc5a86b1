// l0-int64-index-math: index arithmetic widened to int64 although every offset fits in int32.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

constexpr long long kInt32Max = 2147483647LL;

class Int64IndexMathRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-int64-index-math"; }
  std::string_view description() const override {
    return "Index arithmetic is explicitly widened to int64 (`.to(tl.int64)`, `tl.cast(x, tl.int64)`, "
           "int64 tl.full/tl.zeros/tl.arange results) and the result feeds an address, although the "
           "captured launch shows every offset fits in int32: the largest element offset of every "
           "tensor argument, every integer argument and programs x block are below 2^31. int64 index "
           "math doubles the integer instructions and the registers of every offset tensor. The "
           "widening is needed only for tensors past 2^31 elements; keep it behind a constexpr flag "
           "if such sizes are possible.";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};

bool is_int64(const PyNode& n) {
  std::string d = normalize_triton_name(dotted_name(n));
  return d == "tl.int64" || d == "tl.uint64";
}

// The cast or constructor producing int64, or nullptr.
bool widens_to_int64(const PyNode& call) {
  std::string name = call_name(call);
  const PyNode* f = call.child("func");
  if (f && f->type == "Attribute" && f->str_field("attr") == "to") {
    const PyNode* dt = argument(call, 0) ? argument(call, 0) : keyword(call, "dtype");
    return dt && is_int64(*dt);
  }
  if (name == "tl.cast") return argument(call, 1) && is_int64(*argument(call, 1));
  if (name == "tl.full" || name == "tl.zeros" || name == "tl.arange") {
    const PyNode* dt = keyword(call, "dtype");
    if (!dt && name == "tl.full") dt = argument(call, 2);
    return dt && is_int64(*dt);
  }
  return false;
}

// Largest element offset any argument of the launch implies (tensor extents, integer values).
std::pair<long long, std::string> largest_offset(const KernelView& view) {
  long long best = 0;
  std::string what;
  for (const auto& [name, arg] : view.launch().args.items()) {
    long long v = 0;
    if (arg.value("kind", "") == "tensor") {
      auto shape = arg.value("shape", nlohmann::json::array());
      auto stride = arg.value("stride", nlohmann::json::array());
      v = 1;
      for (size_t i = 0; i < shape.size() && i < stride.size(); ++i)
        v += (shape[i].get<long long>() - 1) * std::abs(stride[i].get<long long>());
    } else if (arg.value("kind", "") == "scalar" && arg.contains("value") && arg.at("value").is_number_integer()) {
      v = std::abs(arg.at("value").get<long long>());
    }
    if (v > best) best = v, what = name;
  }
  return {best, what};
}

void Int64IndexMathRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  std::vector<const PyNode*> widenings;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    if (n.type == "Call" && widens_to_int64(n)) widenings.push_back(&n);
  });
  if (widenings.empty()) return;
  for (const auto& [name, sig] : view.launch().signature.items())
    if (sig == "i64" || sig == "u64") return;  // the JIT itself saw a value past int32
  auto [extent, extent_arg] = largest_offset(view);
  auto tile = largest_tile(view);
  long long span = view.launch().programs() * (tile ? tile->elements : 1);
  if (extent > kInt32Max || span > kInt32Max) return;

  std::vector<const PyNode*> addresses;
  for (const PyNode* op : view.calls({"tl.load", "tl.store", "tl.atomic_add"}))
    if (const PyNode* p = KernelView::pointer_arg(*op)) addresses.push_back(p);
  std::vector<int> reported;
  for (const PyNode* w : widenings) {
    const PyNode* user = nullptr;
    for (const PyNode* p : addresses)
      if (view.flows_from(*p, [&](const PyNode& n) { return &n == w; })) {
        user = p;
        break;
      }
    if (!user || std::find(reported.begin(), reported.end(), w->line) != reported.end()) continue;
    reported.push_back(w->line);
    Finding f = finding_at(view, w->line);
    f.symptom = fmt::format("{} widens index math to int64; all offsets fit in int32", view.text(*w));
    f.evidence.push_back(view.source(w->line, "explicit int64 index arithmetic"));
    f.evidence.push_back(view.source(user->line, fmt::format("the widened value reaches the address {}", view.text(*user))));
    f.evidence.push_back(view.launch_evidence(fmt::format(
        "largest offset {} ({}), {} programs x {} elements = {}; int32 max {}", extent, extent_arg,
        view.launch().programs(), tile ? tile->elements : 1, span, kInt32Max)));
    f.cause = "64-bit offsets double the integer instructions and offset registers of every address tensor; the "
              "captured sizes never need them";
    f.confidence = 0.45;
    f.proposals.push_back({"int32-index-math",
                           "drop the int64 cast (or guard it with a constexpr flag set only when numel >= 2**31)",
                           {{"expression", view.text(*w)}, {"largest_offset", extent}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_int64_index_math_rule() { return std::make_unique<Int64IndexMathRule>(); }

}  // namespace tdx
