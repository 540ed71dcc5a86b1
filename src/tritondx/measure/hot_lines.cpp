// Hot source lines: the source page's per-SASS-instruction samples joined to the SASS listing
// of the same cubin (by offset, checked by opcode), then summed per Python line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "tritondx/ir/source_map.h"
#include "tritondx/measure/ncu_profile.h"

namespace tdx {

namespace {

// "@!P4  LDG.E R7, desc[...]" -> "LDG.E"
std::string_view ncu_opcode(std::string_view text) {
  size_t b = text.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  text = text.substr(b);
  if (text.starts_with('@')) {
    size_t sp = text.find(' ');
    if (sp == std::string_view::npos) return {};
    text = text.substr(sp);
    b = text.find_first_not_of(' ');
    if (b == std::string_view::npos) return {};
    text = text.substr(b);
  }
  return text.substr(0, std::min(text.find(' '), text.size()));
}

// The kernel's instructions in the listing, by offset.
std::map<uint32_t, const SassInstruction*> kernel_instructions(const NcuProfile& profile, const SassModule& sass) {
  std::string function;
  for (const auto& f : sass.functions)
    if (f == profile.kernel) function = f;
  if (function.empty() && !sass.instructions.empty()) function = sass.instructions.front().function;
  std::map<uint32_t, const SassInstruction*> by_offset;
  for (const auto& ins : sass.instructions)
    if (ins.function == function) by_offset.emplace(ins.offset, &ins);
  return by_offset;
}

const SassInstruction* matching(const std::map<uint32_t, const SassInstruction*>& by_offset,
                                const NcuSourceInstruction& s) {
  auto it = by_offset.find(s.address);
  if (it == by_offset.end() || it->second->full_opcode() != ncu_opcode(s.sass)) return nullptr;
  return it->second;
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// Lines of `source_file` that call into a helper at (file, line), per the LLVM IR's inlinedAt
// chains: {("standard.py", 191) -> {22}} for `tl.max(x, axis=0)` on line 22.
using InlineCallers = std::map<std::pair<std::string, int>, std::set<int>>;

InlineCallers inline_callers(const LlvmModule& llir,
                                                                    const std::string& source_file) {
  InlineCallers out;
  for (const auto& [id, loc] : llir.debug_locations) {
    if (!loc.known() || same_source_file(loc.file, source_file)) continue;
    int cur = id;
    for (int hops = 0; hops < 64; ++hops) {
      auto up = llir.inlined_at.find(cur);
      if (up == llir.inlined_at.end()) break;
      cur = up->second;
      auto caller = llir.debug_locations.find(cur);
      if (caller == llir.debug_locations.end()) break;
      if (same_source_file(caller->second.file, source_file)) {
        out[{file_name(loc.file), loc.line}].insert(caller->second.line);
        break;
      }
    }
  }
  return out;
}

}  // namespace

SassAlignment check_sass_alignment(const NcuProfile& profile, const SassModule& sass) {
  SassAlignment a;
  auto by_offset = kernel_instructions(profile, sass);
  for (const auto& s : profile.source) {
    auto it = by_offset.find(s.address);
    if (it == by_offset.end()) ++a.missing;
    else if (it->second->full_opcode() != ncu_opcode(s.sass)) ++a.mismatched;
    else ++a.matched;
  }
  return a;
}

std::vector<HotLine> attribute_hot_lines(const NcuProfile& profile, const SassModule& sass,
                                         const std::string& source_file, const LlvmModule* llir) {
  auto by_offset = kernel_instructions(profile, sass);
  long long total = profile.total_samples();
  InlineCallers callers = llir ? inline_callers(*llir, source_file) : InlineCallers{};

  // Pass 1: the source line of each matched instruction (directly, or through an inlined helper).
  struct Attributed {
    const NcuSourceInstruction* row;
    int line = 0;
    bool inlined = false;
  };
  std::vector<Attributed> rows;
  std::map<int, std::vector<uint32_t>> direct;  // line -> offsets located there directly
  for (const auto& s : profile.source) {
    const SassInstruction* ins = matching(by_offset, s);
    if (!ins || !ins->loc.known()) continue;
    if (same_source_file(ins->loc.file, source_file)) {
      rows.push_back({&s, ins->loc.line, false});
      direct[ins->loc.line].push_back(s.address);
    } else {
      rows.push_back({&s, 0, true});
    }
  }
  // Pass 2: an inlined helper's instruction goes to its calling line; when several lines call
  // the same helper line (two tl.sum), to the caller whose own instructions are nearest.
  for (auto& r : rows) {
    if (!r.inlined) continue;
    const SassInstruction* ins = by_offset.at(r.row->address);
    auto it = callers.find({file_name(ins->loc.file), ins->loc.line});
    if (it == callers.end()) continue;
    long long best = -1;
    for (int line : it->second) {
      auto d = direct.find(line);
      long long dist = std::numeric_limits<long long>::max() / 2;
      if (d != direct.end())
        for (uint32_t off : d->second)
          dist = std::min(dist, std::llabs(static_cast<long long>(off) - static_cast<long long>(r.row->address)));
      if (best < 0 || dist < best) {
        best = dist;
        r.line = line;
      }
    }
  }

  std::map<int, HotLine> lines;
  for (const auto& r : rows) {
    if (r.line <= 0) continue;
    HotLine& h = lines[r.line];
    h.loc = SourceLoc{source_file, r.line, 0};
    h.samples += r.row->samples;
    if (r.inlined) h.inlined_samples += r.row->samples;
    for (const auto& [reason, n] : r.row->stalls) h.stalls[reason] += n;
    h.l2_sectors += r.row->l2_sectors;
    h.l2_sectors_excessive += r.row->l2_sectors_excessive;
    h.shared_wavefronts += r.row->shared_wavefronts;
    h.shared_wavefronts_excessive += r.row->shared_wavefronts_excessive;
    h.addresses.push_back(r.row->address);
  }
  std::vector<HotLine> out;
  for (auto& [line, h] : lines) {
    std::sort(h.addresses.begin(), h.addresses.end());
    h.fraction = total > 0 ? static_cast<double>(h.samples) / static_cast<double>(total) : 0;
    long long best = 0;
    for (const auto& [reason, n] : h.stalls) {
      // "selected" is an issuing warp and "not_selected" an eligible one: neither is a stall.
      if (reason == "selected" || reason == "not_selected" || n <= best) continue;
      best = n;
      h.dominant_stall = reason;
    }
    h.dominant_fraction = h.samples > 0 ? static_cast<double>(best) / static_cast<double>(h.samples) : 0;
    out.push_back(std::move(h));
  }
  std::stable_sort(out.begin(), out.end(), [](const HotLine& a, const HotLine& b) { return a.samples > b.samples; });
  return out;
}

void to_json(nlohmann::json& j, const HotLine& h) {
  j = {{"file", h.loc.file},
       {"line", h.loc.line},
       {"samples", h.samples},
       {"fraction", h.fraction},
       {"dominant_stall", h.dominant_stall},
       {"dominant_fraction", h.dominant_fraction},
       {"stalls", h.stalls},
       {"l2_sectors", h.l2_sectors},
       {"l2_sectors_excessive", h.l2_sectors_excessive},
       {"shared_wavefronts", h.shared_wavefronts},
       {"shared_wavefronts_excessive", h.shared_wavefronts_excessive},
       {"inlined_samples", h.inlined_samples},
       {"addresses", h.addresses}};
}

}  // namespace tdx
