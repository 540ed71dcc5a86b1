// l0-num-warps-mismatch: num_warps that does not fit the block each program processes.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class NumWarpsMismatchRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-num-warps-mismatch"; }
  std::string_view description() const override {
    return "The launch's num_warps (default 4) does not fit the tile a program processes. Elementwise "
           "and reduction kernels: fewer elements than num_warps x 32 threads x a 16-byte vector leave "
           "each thread less than one vector (narrow or replicated accesses; the coalescing pass caps "
           "elements per thread at tile / threads), while more than max_elements_per_thread elements "
           "per thread strain registers. Dot kernels: wgmma needs num_warps to be a multiple of 4, "
           "and an fp32 accumulator above max_acc_per_thread registers per thread spills. The "
           "proposal computes num_warps from the tile.";
  }
  nlohmann::json options() const override {
    return {{"max_elements_per_thread", max_elements_per_thread_},
            {"target_elements_per_thread", target_elements_per_thread_},
            {"max_acc_per_thread", max_acc_per_thread_},
            {"min_block", min_block_}};
  }
  void configure(const nlohmann::json& o) override {
    max_elements_per_thread_ = o.value("max_elements_per_thread", max_elements_per_thread_);
    target_elements_per_thread_ = o.value("target_elements_per_thread", target_elements_per_thread_);
    max_acc_per_thread_ = o.value("max_acc_per_thread", max_acc_per_thread_);
    min_block_ = o.value("min_block", min_block_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  void report(const KernelView& view, FindingSink& sink, const PyNode& at, int proposed, std::string symptom,
              std::string note, std::string cause, double confidence) const;

  long long max_elements_per_thread_ = 64;
  long long target_elements_per_thread_ = 32;
  long long max_acc_per_thread_ = 128;
  long long min_block_ = 128;  // below it (with several blocks), l0-tiny-block proposes a larger block instead
};

void NumWarpsMismatchRule::report(const KernelView& view, FindingSink& sink, const PyNode& at, int proposed,
                                  std::string symptom, std::string note, std::string cause, double confidence) const {
  int warps = view.launch().num_warps();
  Finding f = finding_at(view, view.launch_line());
  f.symptom = std::move(symptom);
  f.evidence.push_back(view.source(at.line, std::move(note)));
  f.evidence.push_back(view.launch_evidence(fmt::format("num_warps={}{}", warps,
                                                        view.launch().options.contains("num_warps") ? "" : " (default)")));
  f.cause = std::move(cause);
  f.confidence = confidence;
  const KernelInfo* info = view.ctx().task ? view.ctx().task->kernel(view.ctx().kernel_name()) : nullptr;
  bool autotuned = info && info->wrappers.is_array() && !info->wrappers.empty();
  f.proposals.push_back({"set-num-warps",
                         autotuned ? fmt::format("use num_warps={} in the autotune config the capture used", proposed)
                                   : fmt::format("launch with num_warps={}", proposed),
                         {{"from", warps}, {"num_warps", proposed}, {"autotuned", autotuned}}});
  sink.report(std::move(f));
}

void NumWarpsMismatchRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  int warps = ctx.launch->num_warps();
  long long threads = 32LL * warps;
  auto dots = view.calls({"tl.dot"});
  if (!dots.empty()) {
    const PyNode& dot = *dots.front();
    auto acc = view.shape(dot);
    long long acc_elems = 1;
    if (acc)
      for (long long d : *acc) acc_elems *= d;
    if (warps % 4 != 0) {
      int proposed = static_cast<int>(std::clamp(next_pow2(acc_elems / (32 * max_acc_per_thread_)), 4LL, 8LL));
      report(view, sink, dot, proposed, fmt::format("num_warps={} rules out wgmma for this tl.dot", warps),
             "tl.dot", "MMAv3 (wgmma) needs num_warps % 4 == 0; the dot falls back to mma.sync", 0.8);
      return;
    }
    if (acc && acc_elems / threads > max_acc_per_thread_) {
      int proposed = static_cast<int>(std::min(32LL, next_pow2(acc_elems / (32 * max_acc_per_thread_))));
      report(view, sink, dot, proposed,
             fmt::format("{} accumulator elements per thread with num_warps={}", acc_elems / threads, warps),
             fmt::format("the dot's accumulator is {}x{}", (*acc)[0], acc->back()),
             fmt::format("{} fp32 accumulator registers per thread exceed {}: the accumulator spills or occupancy "
                         "collapses",
                         acc_elems / threads, max_acc_per_thread_),
             0.55);
    }
    return;
  }
  auto tile = largest_tile(view);
  if (!tile || tile->elements <= 4) return;
  int bytes = element_bytes(view.pointee_type(view.root_pointer(*KernelView::pointer_arg(*tile->memop))));
  if (!bytes) bytes = 4;
  long long vec = 16 / bytes;
  long long per_thread = tile->elements / threads;
  if (tile->elements < threads * vec) {
    if (tile->elements < min_block_ && tile->rank <= 1 && ctx.launch->programs() > 1) return;  // l0-tiny-block's case
    int proposed = static_cast<int>(std::max(1LL, pow2_floor(tile->elements / (32 * vec))));
    if (proposed >= warps) return;
    std::string spread = tile->elements < threads
                             ? fmt::format("{} of {} threads replicate lanes", threads - tile->elements, threads)
                             : fmt::format("{} element(s) ({} bytes) per thread instead of a {}-byte vector",
                                           per_thread, per_thread * bytes, 16);
    report(view, sink, *tile->memop, proposed,
           fmt::format("{} elements per program over {} threads ({} warps)", tile->elements, threads, warps),
           fmt::format("the largest access moves {} elements of {} bytes", tile->elements, bytes),
           fmt::format("{}: the coalescing layout caps elements per thread at tile / threads; {} warps give every "
                       "thread a full 16-byte vector",
                       spread, proposed),
           tile->elements < threads ? 0.7 : 0.55);
    return;
  }
  if (per_thread > max_elements_per_thread_) {
    int proposed = static_cast<int>(std::min(32LL, next_pow2(tile->elements / (32 * target_elements_per_thread_))));
    if (proposed <= warps) return;
    report(view, sink, *tile->memop, proposed,
           fmt::format("{} elements per thread ({} elements, {} warps)", per_thread, tile->elements, warps),
           fmt::format("the largest access moves {} elements", tile->elements),
           fmt::format("{} elements per thread per live tensor exceed {}: register pressure limits occupancy or "
                       "spills; {} warps give {} per thread",
                       per_thread, max_elements_per_thread_, proposed, tile->elements / (32LL * proposed)),
           0.5);
  }
}

}  // namespace

std::unique_ptr<Rule> make_num_warps_mismatch_rule() { return std::make_unique<NumWarpsMismatchRule>(); }

}  // namespace tdx
