// l0-mask-blocks-vectorization: a mask bound the compiler cannot prove divisible splits every
// access of the contiguous dimension into scalar predicated loads/stores.
#include <algorithm>
#include <map>
#include <set>

#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class MaskBlocksVectorizationRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-mask-blocks-vectorization"; }
  std::string_view description() const override {
    return "A mask `index < n` on the contiguous dimension of an access, where n is an integer argument "
           "whose launch value is not a multiple of 16 (so the JIT gives it no tt.divisibility): AxisInfo "
           "makes the mask's constancy gcd(block, divisibility(n)) = 1 and every load and store of the "
           "kernel is split into one predicated 4-byte (or narrower) access per element, in every "
           "program, although only the last block needs the mask (vector_add's n = 50,000,003). Fixes, "
           "computed from the launch: mask only the tail (an unmasked main part over the full blocks), "
           "or pad n to a multiple of 16. (`n = tl.multiple_of(n, g)` does not help: Triton 3.6 drops "
           "a hint on a kernel argument, which has no defining op to carry it.)";
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;
};


// Is the access in the `else` of a full-block guard `if start + BLOCK <= n:` (unmasked-full-blocks'
// tail), which runs for the last block only?
bool in_tail_branch(const PyNode& memop, const std::string& n) {
  auto guards = full_block_guards(memop, true);
  return std::any_of(guards.begin(), guards.end(), [&](const FullBlockGuard& g) { return g.bound == n; });
}

struct Affected {
  const PyNode* compare = nullptr;
  std::vector<const PyNode*> memops;
  std::optional<BlockIndex> index;
  std::set<std::string> unaligned_terms;  // other unspecialized integer params of the addresses
};

void MaskBlocksVectorizationRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  auto unspecialized = [&](const std::string& name) {
    std::string sig = view.signature(name);
    auto v = ctx.launch->int_arg(name);
    return (sig == "i32" || sig == "i64" || sig == "u32" || sig == "u64") && !view.has_divisibility_16(name) && v &&
           *v % 16 != 0;
  };
  std::map<std::string, Affected> by_bound;
  std::vector<std::string> order;
  for (const auto& access : masked_accesses(view)) {
    const MaskBound& b = access.bound;
    if (!b.upper || b.limit->type != "Name" || view.definition(*b.limit)) continue;
    std::string n = b.limit->str_field("id");
    if (!unspecialized(n) || in_tail_branch(*access.memop, n)) continue;
    auto bi = decompose_block_index(view, *b.index);
    const PyNode* address = KernelView::pointer_arg(*access.memop);
    if (!bi || bi->block < 2 || !address || !indexes_contiguously(view, *address, *b.index)) continue;
    int bytes = element_bytes(view.pointee_type(view.root_pointer(*address)));
    if (bytes == 0 || bytes >= 16) continue;
    auto [it, fresh] = by_bound.try_emplace(n);
    if (fresh) {
      order.push_back(n);
      it->second.compare = b.compare;
      it->second.index = bi;
    }
    auto& memops = it->second.memops;
    if (std::find(memops.begin(), memops.end(), access.memop) == memops.end()) memops.push_back(access.memop);
    view.visit_flow(*address, [&](const PyNode& x) {
      if (x.type == "Name" && !view.definition(x) && x.str_field("id") != n && unspecialized(x.str_field("id")))
        it->second.unaligned_terms.insert(x.str_field("id"));
      return true;
    });
  }
  for (const auto& n : order) {
    const Affected& a = by_bound[n];
    long long value = *ctx.launch->int_arg(n);
    long long block = a.index->block;
    auto blocks = a.index->blocks();

    Finding f = finding_at(view, a.compare->line);
    f.symptom = fmt::format("mask bound {}={} is not known to be a multiple of 16: {} access(es) fall back to one "
                            "element per instruction",
                            n, value, a.memops.size());
    f.evidence.push_back(view.source(a.compare->line, fmt::format("{} (block of {})", view.text(*a.compare), block)));
    for (const PyNode* op : a.memops)
      f.evidence.push_back(view.source(op->line, "contiguous access predicated by that mask"));
    f.evidence.push_back(view.launch_evidence(fmt::format("{}={} ({} % 16 = {}), no tt.divisibility for {}", n, value,
                                                          value, value % 16, n)));
    std::string terms;
    for (const auto& t : a.unaligned_terms)
      terms += fmt::format("{}{}={}", terms.empty() ? "" : ", ", t, *ctx.launch->int_arg(t));
    f.cause = fmt::format("the mask's constancy is gcd(block, divisibility({})) = 1, so the vector width of every "
                          "access it guards drops to 1 element{}",
                          n, terms.empty() ? std::string() : fmt::format("; the addresses also use unspecialized {}", terms));
    f.confidence = 0.65;
    if (blocks && *blocks >= 2) {
      long long full = value / block;
      f.proposals.push_back({"unmasked-full-blocks",
                             fmt::format("mask only the tail: {} full blocks of {} unmasked, then one masked block of "
                                         "{} elements (a runtime `if start + BLOCK <= {}` per block)",
                                         full, block, value - full * block, n),
                             {{"bound", n},
                              {"block", block},
                              {"full_blocks", full},
                              {"tail", value - full * block},
                              {"line", a.memops.empty() ? a.compare->line : a.memops.front()->line}}});
    }
    // Values that are multiples of 2..8 (3000 = 8 x 375) can be shown to the compiler by rebuilding
    // them as (a // d) * d under a launch-time flag.
    nlohmann::json rebuild = nlohmann::json::array({n});
    bool rebuildable = unspecialized_divisor(value) >= 2;
    for (const auto& t : a.unaligned_terms) {
      rebuildable = rebuildable && unspecialized_divisor(ctx.launch->int_arg(t).value_or(1)) >= 2;
      rebuild.push_back(t);
    }
    if (rebuildable)
      f.proposals.push_back({"divisibility-by-construction",
                             fmt::format("rebuild {} as multiples of what divides {} under a constexpr flag the "
                                         "launch computes, so AxisInfo sees the divisibility the data has",
                                         rebuild.size() == 1 ? n : "the bound and the address terms", value),
                             {{"args", rebuild}}});
    if (f.proposals.empty())
      f.proposals.push_back({kAdvice,
                             fmt::format("pad {} to a multiple of 16 ({} -> {}) in the allocation", n, value,
                                         (value + 15) / 16 * 16),
                             {{"bound", n}, {"padded", (value + 15) / 16 * 16}}});
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_mask_blocks_vectorization_rule() { return std::make_unique<MaskBlocksVectorizationRule>(); }

}  // namespace tdx
