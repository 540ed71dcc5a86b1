// l0-short-row-per-program: every program handles one short row, and there are very many programs.
#include "tritondx/source/block_index.h"
#include "tritondx/ladder/l0_triage/l0_rule.h"
#include "tritondx/source/retiling.h"

namespace tdx {
namespace {

using namespace l0;

class ShortRowPerProgramRule final : public L0Rule {
 public:
  std::string_view id() const override { return "l0-short-row-per-program"; }
  std::string_view description() const override {
    return "A straight-line kernel (no loop) whose program id selects one row (`pid = tl.program_id(0)`, "
           "the row's address derived from it) and whose accesses are 1-D tiles of that short row: at "
           "most max_bytes_per_program bytes moved per program, over at least min_programs programs, and "
           "every access contiguous along its tl.arange (a strided row stays strided in a taller tile). "
           "Each program then pays its launch, index arithmetic and memory latency for a few hundred "
           "bytes, and a block smaller than the program's threads leaves threads loading duplicates or "
           "idle. Giving each program several consecutive rows (rows-per-program) keeps the row's block "
           "and moves a [rows, block] tile per access. Streaming kernels whose block index steps by "
           "the block (pid * BLOCK + tl.arange) are l0-tiny-block's, not this rule's.";
  }
  nlohmann::json options() const override {
    return {{"max_bytes_per_program", max_bytes_}, {"min_programs", min_programs_}};
  }
  void configure(const nlohmann::json& o) override {
    max_bytes_ = o.value("max_bytes_per_program", max_bytes_);
    min_programs_ = o.value("min_programs", min_programs_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  long long max_bytes_ = 2048;
  long long min_programs_ = 8192;
};

void ShortRowPerProgramRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  long long programs = view.launch().programs();
  if (programs < min_programs_) return;
  bool looped = false;
  PyModule::walk(view.function(), [&](const PyNode& n) { looped |= n.type == "For" || n.type == "While"; });
  if (looped) return;

  // The program ids the kernel assigns to names.
  std::vector<const PyNode*> pids;
  PyModule::walk(view.function(), [&](const PyNode& n) {
    const PyNode* v = n.type == "Assign" ? n.child("value") : nullptr;
    if (v && v->type == "Call" && normalize_triton_name(call_name(*v)) == "tl.program_id") pids.push_back(v);
  });
  if (pids.empty()) return;

  long long bytes = 0;
  const PyNode* first_row_load = nullptr;
  for (const PyNode* op : view.calls({"tl.load", "tl.store"})) {
    const PyNode* ptr = KernelView::pointer_arg(*op);
    if (!ptr) return;
    auto shape = view.shape(*ptr);
    auto elements = view.elements(*op);
    int width = element_bytes(view.pointee_type(view.root_pointer(*ptr)));
    if (!shape || !elements || width == 0) return;  // unknown: stay silent
    if (*elements <= 1) continue;                   // a scalar per program (a row's statistic)
    if (shape->size() != 1) return;                 // a 2-D tile already
    // A block index stepping by its block streams contiguous data: l0-tiny-block's case.
    if (auto bi = decompose_block_index(view, *ptr); bi && bi->start.hi > bi->start.lo && bi->blocks() &&
                                                     *bi->blocks() >= 2)
      return;
    // A strided row (`row + 2 * offs`, an interleaved pair) stays strided in a taller tile: on the
    // H200 the interleaved rotary entry ran 3x slower with 32 rows per program.
    if (!contiguous_along_arange(view, *ptr)) return;
    bytes += *elements * width;
    bool from_pid = view.flows_from(*ptr, [&](const PyNode& x) {
      return std::find(pids.begin(), pids.end(), &x) != pids.end();
    });
    if (from_pid && normalize_triton_name(call_name(*op)) == "tl.load" && !first_row_load)
      first_row_load = op;
  }
  if (!first_row_load || bytes == 0 || bytes > max_bytes_) return;

  const long long row = *view.elements(*first_row_load);
  const int threads = view.launch().num_warps() * 32;
  Finding f = finding_at(view, first_row_load->line);
  f.symptom = fmt::format("each of {} programs moves {} bytes: one {}-element row", programs, bytes, row);
  f.evidence.push_back(view.source(first_row_load->line, fmt::format("a 1-D access of {} elements, its row chosen "
                                                                     "by the program id",
                                                                     row)));
  f.evidence.push_back(view.launch_evidence(fmt::format("{} programs of {} threads", programs, threads)));
  f.cause = fmt::format("one short row per program: the launch, the index arithmetic and a full memory latency are "
                        "paid per {} bytes, and {} threads share {} elements{}",
                        bytes, threads, row, row < threads ? " (the rest load duplicates)" : "");
  f.confidence = 0.7;
  f.proposals.push_back(retiling_proposal(&view.function(), "rows-per-program",
                                          "give each program several consecutive rows: a [TILE_ROWS, BLOCK] tile "
                                          "per access",
                                          {{"line", first_row_load->line}, {"elements", row}}));
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_short_row_per_program_rule() { return std::make_unique<ShortRowPerProgramRule>(); }

}  // namespace tdx
