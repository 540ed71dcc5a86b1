// The benchmark's summary over every entry result in a results folder (all shards): geomean
// and median speedups, counts above 2x and 5x, roofline fractions, wins against autotune-only
// and torch.compile, ladder reach, GPU evaluations and wall time; Markdown and an SVG histogram.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bench/bench_targets.h"
#include "tritondx/core/diagnostic.h"

namespace tdx {

// The number at `path` in an entry result (0 when absent), and a time in ms as the tables show it.
double entry_number(const nlohmann::json& entry, std::initializer_list<const char*> path);
std::string format_ms(double ms);

// Was the entry's roofline computed against a description of the card that measured it? (Entries
// that name no roofline target used nvidia-h200.)
bool roofline_fits_card(const nlohmann::json& entry);

// A result file (entry.json, entry.partial.json) as JSON; a discarded value when it is missing
// or not JSON.
nlohmann::json read_result_json(const std::string& path);

// Entry results (entry.json) under `out_dir`/entries, sorted by entry id.
std::vector<nlohmann::json> load_entry_results(const std::string& out_dir);

// Sets "task_changed": true on each entry whose task file in `suite_dir` is no longer the one it
// measured (its task_sha256): the summary counts them as measured and lists them (the bench
// measures them again on its next run).
void mark_changed_tasks(std::vector<nlohmann::json>& entries, const std::string& suite_dir);

// `suite_size`: how many entries the suite has (so a partial run says so).
// `targets`: what the summary's Targets section measures against (bench_targets.h).
nlohmann::json summarize_bench(const std::vector<nlohmann::json>& entries, int suite_size,
                               const BenchTargets& targets = default_bench_targets());
std::string render_bench_markdown(const nlohmann::json& summary, const std::vector<nlohmann::json>& entries);
std::string render_speedup_svg(const nlohmann::json& summary);

// Writes summary.json, summary.md and speedups.svg into `out_dir`, measured against the targets of
// `suite_dir` (its targets.json, else the built-in ones); returns their paths.
Expected<std::vector<std::string>> write_bench_summary(const std::string& out_dir, int suite_size,
                                                       const std::string& suite_dir);

}  // namespace tdx
