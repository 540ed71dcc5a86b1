// What the L1 rules share: where kernel-wide findings go, evidence links for measurements and
// SASS instructions, the hot lines with inlined helpers attributed, the load a long-scoreboard
// stall waits for, and ncu's speedup percentages as gains.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritondx/ladder/context.h"
#include "tritondx/measure/measurement.h"
#include "tritondx/measure/ncu_profile.h"

namespace tdx::l1 {

// The kernel's `def` line: where kernel-wide findings (roofline, occupancy) are reported.
int kernel_line(const KernelContext& ctx);
// A finding located at `line` of the task (kernel_line for kernel-wide ones).
Finding finding_at(const KernelContext& ctx, int line);

// A measurement or ncu metric, quoted, pointing at a source line.
EvidenceLink profile_evidence(const KernelContext& ctx, int line, std::string quote, std::string note = {});
// A SASS instruction, quoted with its offset ("/*02b0*/ @!P4 LDG.E R7, ..."); located at
// `line` (the Python line it counts for, which may differ from its own for inlined helpers).
EvidenceLink sass_evidence(const SassInstruction& ins, const KernelContext& ctx, int line, std::string note = {});

// Hot lines of the kernel. From the compiled program's SASS and LLVM IR when the context has
// them (inlined helpers such as tl.max count for their calling line), else ctx.hot_lines.
std::vector<HotLine> hot_lines(const KernelContext& ctx);

// The kernel's SASS instructions by offset (empty without a program) and the profile's row.
const SassInstruction* sass_at(const KernelContext& ctx, uint32_t offset);
const NcuSourceInstruction* source_at(const NcuProfile& profile, uint32_t offset);

// The instruction a long-scoreboard stall at `ins` waits for: the nearest earlier global/local
// load (LDG, LD, LDL, ATOMG, ...) writing one of its source registers (searching backwards,
// then around the loop from the end); for an instruction right after DEPBAR, the cp.async
// copies (LDGSTS) of the function. Empty if none is found.
std::vector<const SassInstruction*> long_scoreboard_producers(const KernelContext& ctx, const SassInstruction& ins);

// "long_sb" -> "long scoreboard"; and a sentence on what the stall means.
std::string stall_name(std::string_view reason);
std::string stall_meaning(std::string_view reason);

// ncu's "Estimated Speedup" (percent of the runtime saved) as a speedup factor: 25 -> 1.33.
double gain_from_speedup(double percent);
// 1 / measured roofline fraction: no fix makes the kernel faster than its roofline floor.
std::optional<double> roofline_headroom(const KernelContext& ctx);

// The kernel's integer constexpr arguments whose name contains BLOCK (BLOCK, BLOCK_M, ...).
std::vector<std::pair<std::string, long long>> block_constexprs(const KernelContext& ctx);

std::string percent(double fraction);           // 0.523 -> "52%"
std::string count(long long n);                 // 11093 -> "11,093"
std::string bytes(double b);                    // 3.93e8 -> "393.2 MB"
std::string rate(double bytes_per_second);      // 2.2e12 -> "2.20 TB/s"

}  // namespace tdx::l1
