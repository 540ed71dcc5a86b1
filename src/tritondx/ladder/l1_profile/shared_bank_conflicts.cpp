// l1-shared-bank-conflicts: shared-memory accesses of a source line that need more wavefronts
// than ideal (bank conflicts), traced to the shared layout Triton chose for the line's buffer.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

class SharedBankConflictsRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-shared-bank-conflicts"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "Shared-memory accesses of a source line that take more wavefronts than ideal: lanes of a warp "
           "hit the same bank, so the access is replayed (Nsight Compute's per-instruction L1 Wavefronts "
           "Shared against their ideal; its SharedMemoryConflicts / UncoalescedSharedAccess rules). The "
           "finding quotes the conflicting SASS instructions (often the cp.async LDGSTS writing a tile, or "
           "a convert_layout's STS/LDS), the TTGIR shared layout of the line's buffer (its swizzle width), "
           "and for a tile whose contiguous rows are narrower than 128 bytes proposes the block size that "
           "lets Triton use the full 128-byte swizzle.";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .profile = true}; }
  nlohmann::json options() const override {
    return {{"min_excess_fraction", min_excess_}, {"min_kernel_share", min_share_}};
  }
  void configure(const nlohmann::json& o) override {
    min_excess_ = o.value("min_excess_fraction", min_excess_);
    min_share_ = o.value("min_kernel_share", min_share_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  double min_excess_ = 0.2;  // excessive / total wavefronts of the line
  double min_share_ = 0.05;  // the line's excessive wavefronts / all the kernel's shared wavefronts
};

// The line's shared buffer in the TTGIR: an op whose types name a shared-memory descriptor.
struct SharedBuffer {
  const MlirOp* op = nullptr;
  MlirType type;
  const Layout* layout = nullptr;
};

std::optional<SharedBuffer> shared_buffer(const KernelContext& ctx, int line) {
  if (!ctx.program || !ctx.program->ttgir || !ctx.source_map) return std::nullopt;
  const MlirModule& m = *ctx.program->ttgir;
  std::optional<SharedBuffer> found;
  for (int index : ctx.source_map->at(Stage::Ttgir, line)) {
    const MlirOp& op = m.ops[static_cast<size_t>(index)];
    auto consider = [&](const MlirType& t) {
      if (t.encoding.empty()) return;
      const Layout* l = m.layout(t.encoding);
      if (!l || (l->kind != LayoutKind::NvmmaShared && l->kind != LayoutKind::SwizzledShared)) return;
      // Prefer the op that writes the buffer (async copy, local_store) over allocations and views.
      bool writes = op.name.find("copy") != std::string::npos || op.name.find("store") != std::string::npos;
      if (!found || (writes && found->op->name.find("copy") == std::string::npos &&
                     found->op->name.find("store") == std::string::npos))
        found = SharedBuffer{&op, t, l};
    };
    for (const auto& t : op.result_types) consider(t);
    for (const auto& t : op.operand_types) consider(t);
  }
  return found;
}

// A warpgroup MMA (HGMMA, IGMMA, QGMMA, BGMMA: "@P0 HGMMA.64x64x16.F32 ..."), which reads its
// operand tiles from shared memory through matrix descriptors.
bool is_warpgroup_mma(std::string_view sass) {
  size_t b = sass.find_first_not_of(" \t");
  if (b == std::string_view::npos) return false;
  sass.remove_prefix(b);
  if (sass.starts_with('@')) {
    size_t e = sass.find_first_of(" \t");
    if (e == std::string_view::npos) return false;
    sass.remove_prefix(e);
    sass.remove_prefix(std::min(sass.size(), sass.find_first_not_of(" \t")));
  }
  std::string_view opcode = sass.substr(0, sass.find_first_of(". \t"));
  return opcode.size() == 5 && opcode.ends_with("GMMA");
}

void SharedBankConflictsRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.profile || ctx.profile->source.empty()) return;
  const NcuProfile& p = *ctx.profile;
  long long kernel_wavefronts = 0, kernel_excess = 0;
  for (const auto& s : p.source) {
    kernel_wavefronts += s.shared_wavefronts;
    kernel_excess += s.shared_wavefronts_excessive;
  }
  if (kernel_excess <= 0) return;
  double kernel_gain = 0;
  const NcuRuleResult* ncu_rule = nullptr;
  for (std::string_view name : {"SharedMemoryConflicts", "UncoalescedSharedAccess"})
    for (const auto* r : p.rule_results(name))
      if (r->type == "OPT" && (!ncu_rule || r->estimated_speedup > ncu_rule->estimated_speedup)) ncu_rule = r;
  if (ncu_rule) kernel_gain = gain_from_speedup(ncu_rule->estimated_speedup);
  if (auto headroom = roofline_headroom(ctx); headroom && kernel_gain > 0) kernel_gain = std::min(kernel_gain, *headroom);

  for (const auto& h : hot_lines(ctx)) {
    if (h.shared_wavefronts_excessive <= 0) continue;
    int line = h.loc.line;
    // The line's shared accesses, without the warpgroup MMAs nvdisasm puts on it (their reads
    // belong to the tl.dot and would dilute the ratio); the conflicting ones are quoted.
    std::vector<std::pair<const NcuSourceInstruction*, const SassInstruction*>> ins;
    long long wavefronts = 0, excessive = 0, mma_wavefronts = 0;
    for (uint32_t off : h.addresses) {
      const auto* s = source_at(p, off);
      if (!s || s->shared_wavefronts <= 0) continue;
      if (is_warpgroup_mma(s->sass) && s->shared_wavefronts_excessive <= 0) {
        mma_wavefronts += s->shared_wavefronts;
        continue;
      }
      wavefronts += s->shared_wavefronts;
      excessive += s->shared_wavefronts_excessive;
      if (s->shared_wavefronts_excessive > 0) ins.emplace_back(s, sass_at(ctx, off));
    }
    if (wavefronts <= 0) continue;
    double excess = static_cast<double>(excessive) / static_cast<double>(wavefronts);
    double share = static_cast<double>(excessive) / static_cast<double>(kernel_excess);
    double of_kernel = static_cast<double>(excessive) / static_cast<double>(std::max(1LL, kernel_wavefronts));
    if (excess < min_excess_ || of_kernel < min_share_) continue;
    std::stable_sort(ins.begin(), ins.end(), [](const auto& a, const auto& b) {
      return a.first->shared_wavefronts_excessive > b.first->shared_wavefronts_excessive;
    });

    Finding f = finding_at(ctx, line);
    double ratio = static_cast<double>(wavefronts) / static_cast<double>(std::max(1LL, wavefronts - excessive));
    f.symptom = fmt::format("line {}'s shared-memory accesses take {:.1f}x the ideal wavefronts (bank conflicts: {} "
                            "of {} wavefronts excessive, {} of the kernel's)",
                            line, ratio, count(excessive), count(wavefronts), percent(of_kernel));
    f.evidence.push_back(ctx.source_evidence(line, fmt::format("{} of the kernel's excessive shared wavefronts", percent(share))));
    for (size_t k = 0; k < ins.size() && k < 2; ++k) {
      const auto& [s, i] = ins[k];
      if (!i) continue;
      f.evidence.push_back(sass_evidence(*i, ctx, line,
                                         fmt::format("{} shared wavefronts, ideal {}", count(s->shared_wavefronts),
                                                     count(s->shared_wavefronts_ideal))));
    }
    f.evidence.push_back(profile_evidence(
        ctx, line,
        fmt::format("L1 Wavefronts Shared Excessive: {} of {} ({})", count(excessive), count(wavefronts), percent(excess)),
        mma_wavefronts > 0 ? fmt::format("summed over the line's shared accesses; the {} wavefronts of the tl.dot's "
                                         "warpgroup MMA reads that nvdisasm puts on this line are left out",
                                         count(mma_wavefronts))
                           : std::string("summed over the line's shared accesses")));
    if (ncu_rule)
      f.evidence.push_back(profile_evidence(ctx, line, "ncu " + ncu_rule->rule + ": " + ncu_rule->description.substr(0, 200),
                                            fmt::format("ncu estimates {:.1f}% of the runtime", ncu_rule->estimated_speedup)));
    f.cause = "lanes of a warp access addresses in the same shared-memory bank, so the access is split into "
              "several wavefronts";
    if (auto buf = shared_buffer(ctx, line)) {
      f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, *buf->op, fmt::format("the line's shared buffer, layout {}", buf->type.encoding)));
      const Layout& l = *buf->layout;
      if (l.swizzling_byte_width > 0 && !buf->type.shape.empty()) {
        int bits = l.element_bit_width > 0 ? l.element_bit_width : buf->type.element_bits();
        long long inner = buf->type.shape.back();
        long long row_bytes = bits > 0 ? inner * bits / 8 : 0;
        f.evidence.push_back(EvidenceLink{Stage::Ttgir, buf->op->loc, 0, l.text,
                                          fmt::format("{}-byte swizzle; the tile's contiguous rows are {} x {} bits = {} bytes",
                                                      l.swizzling_byte_width, inner, bits, row_bytes)});
        if (l.swizzling_byte_width < 128 && row_bytes > 0 && row_bytes < 128) {
          long long needed = 128 * 8 / bits;
          f.cause = fmt::format("the tile's contiguous rows are {} bytes, so Triton picks a {}-byte swizzle "
                                "({}); with 16-byte writes per lane, lanes of a warp still collide on banks. A "
                                "128-byte row gets the full 128-byte swizzle, which is conflict-free",
                                row_bytes, l.swizzling_byte_width, buf->type.encoding);
          std::string param;
          auto blocks = block_constexprs(ctx);
          for (const auto& [name, value] : blocks)
            if (value == inner && (param.empty() || std::toupper(static_cast<unsigned char>(name.back())) == 'K'))
              param = name;
          std::string text = param.empty()
                                 ? fmt::format("make the tile's contiguous dimension {} elements (128 bytes)", needed)
                                 : fmt::format("{} {} -> {}: 128-byte rows, 128-byte swizzle", param, inner, needed);
          if (!param.empty()) {
            // grow-block sets the constexpr behind the contiguous dimension (BLOCK_K of a dot, or
            // the kernel's only block) and the grid follows when it counts blocks of it.
            f.proposals.push_back({"grow-block", text,
                                   {{"constexpr", param}, {"from", inner}, {"block", needed}, {"row_bytes", row_bytes},
                                    {"swizzle_bytes", l.swizzling_byte_width}}});
          } else {
            f.proposals.push_back({kAdvice, text, {{"row_bytes", row_bytes}, {"swizzle_bytes", l.swizzling_byte_width}}});
          }
        }
      }
    }
    if (f.proposals.empty())
      f.proposals.push_back({kAdvice, "change the shared layout (padding or swizzling) so a warp's "
                                                      "lanes spread over all 32 banks",
                             {{"line", line}}});
    if (kernel_gain > 1) f.estimated_gain = std::pow(kernel_gain, share);
    f.confidence = 0.7;
    sink.report(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> make_l1_shared_bank_conflicts_rule() { return std::make_unique<SharedBankConflictsRule>(); }

}  // namespace tdx
