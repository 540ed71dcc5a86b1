// l1-hot-line-stall: a source line holding a large share of the warp stall samples, with its
// dominant stall reason traced to the SASS instructions and, for memory waits, to the load.
#include <algorithm>
#include <filesystem>
#include <set>

#include "tritondx/ladder/l1_profile/l1_common.h"
#include "tritondx/ladder/l1_profile/rules.h"

namespace tdx {
namespace {

using namespace l1;

constexpr int kMaxNumStages = 5;  // set-num-stages proposals go no deeper

class HotLineStallRule final : public Rule {
 public:
  std::string_view id() const override { return "l1-hot-line-stall"; }
  Level level() const override { return Level::L1; }
  std::string_view description() const override {
    return "A Python source line that holds a large share of the kernel's warp stall samples (Nsight "
           "Compute's per-instruction sampling joined to the SASS line table; instructions of inlined "
           "helpers such as tl.max count for the line that calls them). The finding quotes the line's "
           "hottest SASS instructions with their samples, names the dominant stall reason, and for a "
           "long-scoreboard stall follows the waiting instruction's registers back to the global load it "
           "waits for (or to the cp.async copies after a DEPBAR), so the chain reads: source line -> SASS "
           "instruction -> stall -> the load behind it. Silent when the kernel already runs near its "
           "roofline: its stalls are then the memory system at work, not a defect.";
  }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .profile = true}; }
  nlohmann::json options() const override {
    return {{"min_fraction", min_fraction_}, {"near_roofline", near_roofline_}, {"max_instructions", max_instructions_}};
  }
  void configure(const nlohmann::json& o) override {
    min_fraction_ = o.value("min_fraction", min_fraction_);
    near_roofline_ = o.value("near_roofline", near_roofline_);
    max_instructions_ = o.value("max_instructions", max_instructions_);
  }
  void check(const KernelContext& ctx, FindingSink& sink) const override;

 private:
  void report(const KernelContext& ctx, const HotLine& h, FindingSink& sink) const;

  double min_fraction_ = 0.15;  // share of the kernel's samples that makes a line hot
  double near_roofline_ = 0.85; // silent at or above this fraction of the roofline
  int max_instructions_ = 3;    // SASS instructions quoted per line
};

void HotLineStallRule::check(const KernelContext& ctx, FindingSink& sink) const {
  if (!ctx.profile || ctx.profile->source.empty()) return;
  if (ctx.roofline && ctx.roofline->fraction >= near_roofline_) return;
  for (const auto& h : hot_lines(ctx))
    if (h.fraction >= min_fraction_ && !h.dominant_stall.empty()) report(ctx, h, sink);
}

// The lines loading the same pointer expression as `line` (a data set read in several passes).
std::vector<int> lines_loading_same(const KernelContext& ctx, int line) {
  std::vector<int> out;
  auto pointer = [&](int n) -> std::string {
    std::string_view t = ctx.source_line(n);
    size_t at = t.find("tl.load(");
    if (at == std::string_view::npos) return {};
    t = t.substr(at + 8);
    size_t end = t.find_first_of(",)");
    std::string p(t.substr(0, end));
    p.erase(std::remove(p.begin(), p.end(), ' '), p.end());
    return p;
  };
  std::string mine = pointer(line);
  if (mine.empty() || !ctx.function) return out;
  for (int n = ctx.function->line; n <= ctx.function->end_line; ++n)
    if (pointer(n) == mine) out.push_back(n);
  return out;
}

// The innermost `for` loop of the kernel whose body holds `line`, or nullptr.
const PyNode* enclosing_loop(const PyNode& node, int line) {
  for (const auto& c : node.children) {
    if (c.line > line || (c.end_line > 0 && c.end_line < line)) continue;
    if (const PyNode* inner = enclosing_loop(c, line)) return inner;
    if ((c.type == "For" || c.type == "While") && c.line < line) return &c;
  }
  return nullptr;
}

void HotLineStallRule::report(const KernelContext& ctx, const HotLine& h, FindingSink& sink) const {
  const NcuProfile& p = *ctx.profile;
  int line = h.loc.line;
  // The line's instructions, hottest first.
  std::vector<std::pair<const NcuSourceInstruction*, const SassInstruction*>> ins;
  for (uint32_t off : h.addresses)
    if (const auto* s = source_at(p, off)) ins.emplace_back(s, sass_at(ctx, off));
  std::stable_sort(ins.begin(), ins.end(), [](const auto& a, const auto& b) { return a.first->samples > b.first->samples; });
  const std::string& reason = h.dominant_stall;
  long long reason_samples = h.stalls.count(reason) ? h.stalls.at(reason) : 0;

  Finding f = finding_at(ctx, line);
  f.evidence.push_back(ctx.source_evidence(
      line, fmt::format("{} of the kernel's {} warp stall samples", percent(h.fraction), count(p.total_samples()))));
  int quoted = 0;
  for (const auto& [s, sass] : ins) {
    if (quoted >= max_instructions_ || s->samples == 0 || !sass) break;
    std::string from = sass->loc.known() && sass->loc.line != line
                           ? fmt::format("; inlined from {}:{}", std::filesystem::path(sass->loc.file).filename().string(),
                                         sass->loc.line)
                           : std::string();
    long long r = s->stalls.count(reason) ? s->stalls.at(reason) : 0;
    f.evidence.push_back(sass_evidence(*sass, ctx, line,
                                       fmt::format("{} samples ({} of the line), {} {}{}", count(s->samples),
                                                   percent(static_cast<double>(s->samples) / static_cast<double>(h.samples)),
                                                   stall_name(reason), count(r), from)));
    ++quoted;
  }
  f.evidence.push_back(profile_evidence(
      ctx, line,
      fmt::format("{}: {} of {} samples ({})", reason, count(reason_samples), count(h.samples), percent(h.dominant_fraction)),
      stall_meaning(reason)));

  // What a long-scoreboard wait waits for: the load feeding the hottest waiting instruction.
  std::string waits_for;
  int producer_line = 0;
  std::vector<const SassInstruction*> producers;
  if (reason == "long_sb") {
    for (const auto& [s, sass] : ins) {
      if (!sass || !s->stalls.count("long_sb")) continue;
      producers = long_scoreboard_producers(ctx, *sass);
      if (!producers.empty()) break;
    }
    std::set<int> lines;
    for (const auto* prod : producers)
      if (prod->loc.known()) lines.insert(prod->loc.line);
    if (!producers.empty()) {
      const SassInstruction* first = producers.front();
      producer_line = first->loc.known() ? first->loc.line : 0;
      bool async = first->opcode == "LDGSTS";
      for (size_t k = 0; k < producers.size() && k < 2; ++k)
        f.evidence.push_back(sass_evidence(*producers[k], ctx, producers[k]->loc.known() ? producers[k]->loc.line : line,
                                           async ? "a cp.async copy the DEPBAR waits for"
                                                 : "the load whose result the stalled instruction reads"));
      if (producer_line > 0 && producer_line != line)
        f.evidence.push_back(ctx.source_evidence(producer_line, "the load's source line"));
      std::string where;
      for (int l : lines) where += fmt::format("{}{}", where.empty() ? "" : ", ", l);
      waits_for = async ? fmt::format("waiting for the cp.async copies (LDGSTS) of line{} {} to land",
                                      lines.size() > 1 ? "s" : "", where)
                        : fmt::format("waiting for the {} of line {}", first->full_opcode(), where);
    }
  }

  f.symptom = fmt::format("{} of the stall samples are on line {}; {} of them {}{}", percent(h.fraction), line,
                          percent(h.dominant_fraction), stall_name(reason),
                          waits_for.empty() ? std::string() : ", " + waits_for);
  f.cause = stall_meaning(reason);
  if (h.inlined_samples * 2 > h.samples)
    f.cause += fmt::format("; most samples ({}) are in the line's inlined library code (a reduction)",
                           percent(static_cast<double>(h.inlined_samples) / static_cast<double>(h.samples)));

  // Proposals from what the chain shows.
  if (reason == "long_sb" && producers.size() == 1 && producer_line > 0) {
    auto passes = lines_loading_same(ctx, producer_line);
    if (passes.size() > 1) {
      bool softmax = false;
      std::string all;
      for (int n = ctx.function->line; n <= ctx.function->end_line; ++n) all += std::string(ctx.source_line(n)) + "\n";
      softmax = all.find("tl.max") != std::string::npos && all.find("tl.exp") != std::string::npos &&
                all.find("tl.sum") != std::string::npos;
      // Advice: l0-multi-pass-reduction proposes single-pass-reduction / online-softmax for these
      // passes with the pointer and loops they need.
      f.proposals.push_back(
          {kAdvice,
           softmax ? "one pass over the row with a running max and a rescaled running sum (online softmax), "
                     "then the normalizing pass: the data is loaded twice instead of three times, and no pass "
                     "waits on a full reduction before loading"
                   : "fuse the passes that load the same data so each element is loaded once",
           {{"load_lines", passes}}});
    }
    auto blocks = block_constexprs(ctx);
    for (const auto& [name, value] : blocks)
      if (value < 4096) {
        std::string text = fmt::format("{} {} -> {}: more loads in flight before each wait", name, value, value * 4);
        // grow-block sets it and the grid follows (with several block constexprs, the first one
        // below 4096: the candidate is verified and timed like any other).
        f.proposals.push_back({"grow-block", text, {{"constexpr", name}, {"from", value}, {"block", value * 4}}});
        break;
      }
  } else if (reason == "long_sb" && !producers.empty() && producers.front()->opcode == "LDGSTS" && ctx.launch) {
    int stages = ctx.launch->num_stages();
    std::string text = fmt::format("num_stages {} -> {}: one more tile in flight while the current one is used",
                                   stages, stages + 1);
    f.proposals.push_back({stages + 1 <= kMaxNumStages ? RecipeId("set-num-stages") : kAdvice, text,
                           {{"num_stages", stages + 1}}});
  } else if (reason == "lg" || reason == "mio") {
    f.proposals.push_back({kAdvice, "fewer, wider memory instructions (128-bit accesses)", {{"line", line}}});
  }
  // A reduction (inlined library code) inside a loop: one cross-warp exchange per iteration.
  const PyNode* loop = ctx.function && h.inlined_samples * 2 > h.samples ? enclosing_loop(*ctx.function, line) : nullptr;
  if (loop)
    f.proposals.push_back({"reduce-after-loop",
                           fmt::format("accumulate elementwise in the loop of line {} and reduce once after it: one "
                                       "shared-memory exchange and barrier per program instead of one per iteration",
                                       loop->line),
                           {{"loop_line", loop->line}, {"reduction_line", line}}});
  f.confidence = h.samples >= 1000 ? 0.8 : 0.6;
  sink.report(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> make_hot_line_stall_rule() { return std::make_unique<HotLineStallRule>(); }

}  // namespace tdx
