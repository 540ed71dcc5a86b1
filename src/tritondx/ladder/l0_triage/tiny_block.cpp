// l0-tiny-block: a program moves too few elements for the data it streams over.
#include "tritondx/ladder/l0_triage/l0_rule.h"

namespace tdx {
namespace {

using namespace l0;

class TinyBlockRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-tiny-block"; }
  std::string_view description() const override {
    return "A block of a streaming kernel is smaller than the data allows: a 1-D tl.arange block below "
           "min_block elements, or a 2-D tile below min_tile_2d elements, while the captured launch "
           "covers the data with many such blocks (several programs or loop iterations). Each program "
           "then moves a few hundred bytes, so per-program overhead, index math and too few bytes in "
           "flight per SM dominate; a larger block does the same work with fewer, fuller programs.";
  }
  nlohmann::json options() const override {
    return {{"min_block", min_block_}, {"min_tile_2d", min_tile_2d_}, {"max_block", max_block_},
            {"one_program_max_elements", one_program_max_elements_}};
  }
  void configure(const nlohmann::json& o) override {
    min_block_ = o.value("min_block", min_block_);
    min_tile_2d_ = o.value("min_tile_2d", min_tile_2d_);
    max_block_ = o.value("max_block", max_block_);
    one_program_max_elements_ = o.value("one_program_max_elements", one_program_max_elements_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  void check_1d(const KernelView& view, FindingSink& sink) const;
  void check_2d(const KernelView& view, const Tile& tile, FindingSink& sink) const;

  long long min_block_ = 128;
  long long min_tile_2d_ = 1024;
  long long max_block_ = 1024;
  long long one_program_max_elements_ = 4;  // at or below this, l0-one-program-per-element reports instead
};

void TinyBlockRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  auto tile = largest_tile(view);
  if (!tile || tile->elements <= one_program_max_elements_) return;
  if (tile->rank <= 1) check_1d(view, sink);
  else check_2d(view, *tile, sink);
}

void TinyBlockRule::check_1d(const KernelView& view, FindingSink& sink) const {
  std::vector<int> reported;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* ptr = KernelView::pointer_arg(*op);
    auto bi = ptr ? decompose_block_index(view, *ptr) : std::nullopt;
    if (!bi || bi->block >= min_block_ || bi->start.hi <= bi->start.lo) continue;
    auto blocks = bi->blocks();
    if (!blocks || *blocks < 2) continue;
    int line = bi->arange->line;
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    reported.push_back(line);
    long long extent = *blocks * bi->block;
    // A mask bound on the same index gives the exact extent.
    for (const auto& access : masked_accesses(view)) {
      auto mb = decompose_block_index(view, *access.bound.index);
      if (access.memop == op && mb && mb->arange == bi->arange && access.bound.upper && access.bound.limit_range &&
          access.bound.limit_range->is_point())
        extent = access.bound.limit_range->lo;
    }
    long long proposed = std::min(max_block_, std::max(min_block_, next_pow2(extent)));
    const PyNode* size_arg = argument(*bi->arange, 1);
    std::string size_text = size_arg ? view.text(*size_arg) : std::string();

    Finding f = finding_at(view, line);
    f.symptom = fmt::format("block of {} elements streams over {} elements in {} blocks", bi->block, extent, *blocks);
    f.evidence.push_back(view.source(line, fmt::format("tl.arange covers {} elements per program", bi->block)));
    f.evidence.push_back(view.source(op->line, fmt::format("each access moves {} elements", bi->block)));
    f.evidence.push_back(view.launch_evidence(fmt::format("{} programs; {}", view.launch().programs(),
                                                          view.launch_values(*bi->arange))));
    int bytes = element_bytes(view.pointee_type(view.root_pointer(*ptr)));
    int threads = view.launch().num_warps() * 32;
    f.cause = fmt::format(
        "{} elements ({} bytes) per access is below {}: {} threads per program hold {} element(s) each{}, and the "
        "per-program launch and index overhead is paid {} times instead of {}",
        bi->block, bytes ? fmt::format("{}", bi->block * bytes) : std::string("?"), min_block_, threads,
        std::max<long long>(bi->block / threads, 1), bi->block < threads ? " (the rest replicate)" : "", *blocks,
        (extent + proposed - 1) / proposed);
    f.confidence = bi->block < 64 ? 0.7 : 0.55;
    f.proposals.push_back({"grow-block", fmt::format("raise {} from {} to {} (and the grid accordingly)",
                                                     size_text.empty() ? "the block" : size_text, bi->block, proposed),
                           {{"constexpr", size_text}, {"from", bi->block}, {"block", proposed}}});
    // The best block also depends on num_warps and the GPU: let Triton time a few around the proposal.
    f.proposals.push_back({"autotune-configs",
                           fmt::format("@triton.autotune over {} in {{{}, {}, {}}} x num_warps in {{4, 8}}",
                                       size_text.empty() ? "the block" : size_text, proposed / 2, proposed,
                                       proposed * 2),
                           {{"constexpr", size_text}, {"from", bi->block}, {"block", proposed}}});
    sink.report(std::move(f));
  }
}

void TinyBlockRule::check_2d(const KernelView& view, const Tile& tile, FindingSink& sink) const {
  if (tile.elements >= min_tile_2d_ || tile.shape.size() != 2) return;
  // The data must be larger than the tile along some dimension: several programs or loop trips.
  long long programs = view.launch().programs();
  bool looped = PyModule::enclosing_loop(*tile.memop) != nullptr;
  if (programs < 2 && !looped) return;
  std::vector<long long> proposed = tile.shape;
  while (proposed[0] * proposed[1] < min_tile_2d_) (proposed[0] <= proposed[1] ? proposed[0] : proposed[1]) *= 2;
  Finding f = finding_at(view, tile.memop->line);
  f.symptom = fmt::format("{}x{} tile ({} elements) per program", tile.shape[0], tile.shape[1], tile.elements);
  f.evidence.push_back(view.source(tile.memop->line, fmt::format("the largest access moves a {}x{} tile",
                                                                   tile.shape[0], tile.shape[1])));
  f.evidence.push_back(view.launch_evidence(fmt::format("{} programs; {}", programs,
                                                        view.launch_values(*KernelView::pointer_arg(*tile.memop)))));
  f.cause = fmt::format("a {}-element tile is below {}: each program moves few bytes per access and pays the "
                        "per-program overhead for little work{}",
                        tile.elements, min_tile_2d_,
                        view.calls({"tl.dot"}).empty() ? "" : "; small dot tiles also re-read operands from memory "
                                                              "and cannot use wgmma's 64-row tiles");
  f.confidence = 0.5;
  f.proposals.push_back({"grow-tile", fmt::format("use a {}x{} tile", proposed[0], proposed[1]),
                         {{"from", tile.shape}, {"tile", proposed}}});
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_tiny_block_rule() { return std::make_unique<TinyBlockRule>(); }

}  // namespace tdx
