#include "tritondx/bench/bench_summary.h"

#include "tritondx/bench/bench_entry.h"
#include "tritondx/bench/bench_targets.h"
#include "tritondx/target/target.h"
#include "tritondx/measure/interleaved.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace tdx {
namespace {

namespace fs = std::filesystem;

double geomean(const std::vector<double>& xs) {
  if (xs.empty()) return 0;
  double s = 0;
  for (double x : xs) s += std::log(x);
  return std::exp(s / static_cast<double>(xs.size()));
}

double median(const std::vector<double>& xs) { return median_of(xs); }

// Speedup bins of the histogram: [lo, hi).
struct Bin {
  double lo, hi;
  const char* label;
};
// A loss to torch.compile by at most this fraction is listed as within 1% (the target still
// counts it as a loss): two memory-bound kernels at the bandwidth differ by noise.
constexpr double kTieFraction = 0.01;

constexpr Bin kBins[] = {{0, 0.98, "<1x"},   {0.98, 1.02, "1x"},  {1.02, 1.25, "1-1.25x"}, {1.25, 1.5, "1.25-1.5x"},
                         {1.5, 2, "1.5-2x"}, {2, 3, "2-3x"},      {3, 5, "3-5x"},          {5, 10, "5-10x"},
                         {10, 1e300, ">10x"}};

std::string fmt_x(double x) { return x > 0 ? fmt::format("{:.2f}x", x) : "-"; }

// The entry's ladder reach, raised to the level of any rewrite on its best path: entries
// written before the search counted the findings its candidates targeted (a compiler-confirmed
// L3 finding used at the L1 escalation) report only their escalation.
std::string ladder_reach(const nlohmann::json& tritondx) {
  std::string reach = tritondx.value("ladder_reach", "");
  if (tritondx.contains("best_path") && tritondx["best_path"].is_array())
    for (const auto& step : tritondx["best_path"]) {
      std::string level = step.is_object() ? step.value("level", "") : "";
      if (level.size() == 2 && level[0] == 'L' && (reach.empty() || level > reach)) reach = level;
    }
  return reach;
}

std::string percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

}  // namespace

bool roofline_fits_card(const nlohmann::json& entry) {
  if (!entry.contains("roofline") || !entry.contains("card")) return true;
  // Entries written before the roofline named its target used the default, nvidia-h200.
  const std::string name = entry["roofline"].value("target", "nvidia-h200");
  static std::map<std::string, std::optional<TargetDescription>> cache;
  if (!cache.contains(name)) {
    auto t = load_target(name);
    cache[name] = t ? std::optional<TargetDescription>(*t) : std::nullopt;
  }
  const auto& target = cache[name];
  if (!target) return false;
  auto read_against = target_for_measurement(*target, entry.value("card", ""));
  return read_against && read_against->name == target->name;
}

double entry_number(const nlohmann::json& entry, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &entry;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return 0;
    at = &(*at)[k];
  }
  return at->is_number() ? at->get<double>() : 0;
}

std::string format_ms(double ms) { return ms > 0 ? fmt::format("{:.4f}", ms) : "-"; }

// A decline's reason with its particulars (numbers, quoted names, lines) replaced, so that the
// same refusal on different kernels counts once.
std::string decline_kind(const std::string& decline) {
  static const std::regex quoted("`[^`]*`"), number("[0-9]+");
  return std::regex_replace(std::regex_replace(decline, quoted, "`X`"), number, "N");
}

// Summed over the entries' searches (measured or not): findings proposing a built-in recipe, what
// came of them, and the declines by kind, most frequent first.
nlohmann::json summarize_actionability(const std::vector<nlohmann::json>& entries) {
  std::map<std::string, int> totals;
  std::map<std::string, std::pair<int, std::set<std::string>>> declines;  // kind -> findings, entries
  int entries_with = 0;
  for (const auto& e : entries) {
    if (!e.contains("tritondx") || !e["tritondx"].contains("actionability")) continue;
    const auto& a = e["tritondx"]["actionability"];
    ++entries_with;
    for (const char* k : {"with_recipe", "evaluated", "declined", "budget", "not_reached", "advice_only"})
      totals[k] += a.value(k, 0);
    for (const auto& f : a.value("findings", nlohmann::json::array())) {
      if (f.value("outcome", "") != "declined") continue;
      std::set<std::string> kinds;
      for (const auto& d : f.value("declines", nlohmann::json::array())) kinds.insert(decline_kind(d.get<std::string>()));
      for (const auto& k : kinds) {
        ++declines[k].first;
        declines[k].second.insert(e.value("entry", ""));
      }
    }
  }
  std::vector<std::pair<std::string, std::pair<int, std::set<std::string>>>> sorted(declines.begin(), declines.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  nlohmann::json by_reason = nlohmann::json::array();
  for (const auto& [kind, counted] : sorted)
    by_reason.push_back({{"decline", kind}, {"findings", counted.first},
                         {"entries", std::vector<std::string>(counted.second.begin(), counted.second.end())}});
  nlohmann::json out{{"entries", entries_with}, {"declines", by_reason}};
  for (const auto& [k, v] : totals) out[k] = v;
  const int considered = totals["with_recipe"] - totals["not_reached"];
  out["evaluated_share"] = considered > 0 ? static_cast<double>(totals["evaluated"]) / considered : 0.0;
  return out;
}

nlohmann::json summarize_bench(const std::vector<nlohmann::json>& entries, int suite_size,
                               const BenchTargets& targets) {
  std::vector<double> speedups, fractions, vs_autotune, evals, walls;
  // What the speedups would be if every kernel ran at its roofline floor: the most any rewrite
  // of these initial kernels can reach (1x for a kernel measured at or below its floor).
  std::vector<double> ceilings, ceilings_vs_autotune;
  // The interleaved rounds (bench_interleaved.h): the chosen kernels timed again side by side.
  std::vector<double> interleaved, interleaved_vs_autotune;
  std::vector<double> search_over_interleaved;  // > 1: the search's own timing favoured its pick
  int interleaved_wins = 0, interleaved_wins_vs_autotune = 0;
  int interleaved_losses_vs_autotune = 0;  // tritondx slower, its 95% interval below 1
  int above2 = 0, above5 = 0, wins_autotune = 0, compared_autotune = 0, wins_compile = 0, compared_compile = 0;
  int near_compile = 0;  // not faster, but within kTieFraction: a tie at the same bandwidth
  int rejected_at_test_shapes = 0;  // candidates right at make_inputs, wrong at a test input
  int near_autotune = 0;  // the same against autotune-only
  int not_slower_autotune = 0;  // tritondx's kernel at most as slow as autotune-only's
  std::map<std::string, int> reach;
  std::set<std::string> cards;
  nlohmann::json failures = nlohmann::json::array(), unmeasured = nlohmann::json::array(),
                 stale = nlohmann::json::array(), roofline_other_card = nlohmann::json::array(),
                 task_changed = nlohmann::json::array();
  std::vector<double> hist(std::size(kBins), 0);
  for (const auto& e : entries) {
    std::string status = e.value("status", "");
    if (status == "unmeasured") {
      unmeasured.push_back(e.value("entry", ""));
      continue;
    }
    if (bench_revision(e) != kBenchRevision) {  // measured what an older tritondx did
      stale.push_back(e.value("entry", ""));
      continue;
    }
    // Measured an earlier version of the task file: counted as measured, listed so that it is
    // run again (the bench reruns it by itself: its stored result no longer matches the task).
    if (e.value("task_changed", false)) task_changed.push_back(e.value("entry", ""));
    if (e.contains("card")) cards.insert(e.value("card", ""));
    // A failed entry keeps the initial kernel: it scores 1.0x and is listed.
    double s = status == "ok" ? entry_number(e, {"tritondx", "speedup"}) : 1.0;
    if (status != "ok" || s <= 0) {
      failures.push_back({{"entry", e.value("entry", "")},
                          {"why", e.value("error", status == "ok" ? "no measured speedup" : status)}});
      if (s <= 0) s = 1.0;
    }
    speedups.push_back(s);
    above2 += s > 2 ? 1 : 0;
    above5 += s > 5 ? 1 : 0;
    for (size_t b = 0; b < std::size(kBins); ++b)
      if (s >= kBins[b].lo && s < kBins[b].hi) ++hist[b];
    // A roofline computed with another card's ceilings says nothing about this card: not counted.
    const bool roofline_ok = roofline_fits_card(e);
    if (!roofline_ok) roofline_other_card.push_back(e.value("entry", ""));
    if (double f = entry_number(e, {"tritondx", "roofline_fraction"}); f > 0 && roofline_ok) fractions.push_back(f);
    const double floor_ms = roofline_ok ? entry_number(e, {"roofline", "floor_ms"}) : 0;
    if (double initial_ms = entry_number(e, {"initial", "median_ms"}); floor_ms > 0 && initial_ms > 0)
      ceilings.push_back(std::max(1.0, initial_ms / floor_ms));
    if (double a = entry_number(e, {"autotune_only", "median_ms"}); floor_ms > 0 && a > 0)
      ceilings_vs_autotune.push_back(std::max(1.0, a / floor_ms));
    if (double x = entry_number(e, {"interleaved", "tritondx", "speedup"}); x > 0) {
      interleaved.push_back(x);
      search_over_interleaved.push_back(s / x);
      interleaved_wins += e["interleaved"]["tritondx"].value("confirmed", false) ? 1 : 0;
    }
    if (double x = entry_number(e, {"interleaved", "tritondx_over_autotune", "speedup"}); x > 0) {
      interleaved_vs_autotune.push_back(x);
      const auto& vs = e["interleaved"]["tritondx_over_autotune"];
      interleaved_wins_vs_autotune += vs.value("confirmed", false) ? 1 : 0;
      if (const auto& ci = vs.value("ci95", nlohmann::json()); ci.is_array() && ci.size() == 2 && ci[1].get<double>() < 1)
        ++interleaved_losses_vs_autotune;
    }
    double best_ms = entry_number(e, {"tritondx", "median_ms"});
    if (double a = entry_number(e, {"autotune_only", "median_ms"}); a > 0 && best_ms > 0) {
      ++compared_autotune;
      vs_autotune.push_back(a / best_ms);
      wins_autotune += best_ms < a ? 1 : 0;
      not_slower_autotune += best_ms <= a ? 1 : 0;
      near_autotune += best_ms >= a && best_ms <= a * (1 + kTieFraction) ? 1 : 0;
    }
    if (double c = entry_number(e, {"torch", "compile", "median_ms"}); c > 0 && best_ms > 0) {
      ++compared_compile;
      wins_compile += best_ms < c ? 1 : 0;
      near_compile += best_ms >= c && best_ms <= c * (1 + kTieFraction) ? 1 : 0;
    }
    if (e.contains("tritondx")) {
      ++reach[ladder_reach(e["tritondx"])];
      evals.push_back(entry_number(e, {"tritondx", "gpu_evaluations"}));
      rejected_at_test_shapes += static_cast<int>(entry_number(e, {"tritondx", "rejected_at_test_shapes"}));
    }
    walls.push_back(entry_number(e, {"wall_seconds"}));
  }
  nlohmann::json hist_json = nlohmann::json::array();
  for (size_t b = 0; b < std::size(kBins); ++b) hist_json.push_back({{"bin", kBins[b].label}, {"count", hist[b]}});
  int n = static_cast<int>(speedups.size());
  nlohmann::json s{{"suite_entries", suite_size},
                   {"results", entries.size()},
                   {"measured", n},
                   {"cards", std::vector<std::string>(cards.begin(), cards.end())},
                   {"geomean_speedup", geomean(speedups)},
                   {"median_speedup", median(speedups)},
                   {"above_2x", above2},
                   {"above_5x", above5},
                   {"roofline_fraction_geomean", geomean(fractions)},
                   {"roofline_entries", fractions.size()},
                   {"vs_autotune_geomean", geomean(vs_autotune)},
                   {"wins_vs_autotune", wins_autotune},
                   {"compared_with_autotune", compared_autotune},
                   {"within_1pct_of_autotune", near_autotune},
                   {"not_slower_than_autotune", not_slower_autotune},
                   {"wins_vs_torch_compile", wins_compile},
                   {"compared_with_torch_compile", compared_compile},
                   {"within_1pct_of_torch_compile", near_compile},
                   {"ladder_reach", reach},
                   {"median_gpu_evaluations", median(evals)},
                   {"rejected_only_at_test_shapes", rejected_at_test_shapes},
                   {"median_wall_seconds", median(walls)},
                   {"at_roofline_floor",
                    {{"entries", ceilings.size()},
                     {"geomean_speedup", geomean(ceilings)},
                     {"median_speedup", median(ceilings)},
                     {"vs_autotune_geomean", geomean(ceilings_vs_autotune)}}},
                   {"interleaved",
                    {{"entries", interleaved.size()},
                     {"geomean_speedup", geomean(interleaved)},
                     {"median_speedup", median(interleaved)},
                     {"confirmed_wins", interleaved_wins},
                     {"search_over_interleaved_geomean", geomean(search_over_interleaved)},
                     {"vs_autotune_entries", interleaved_vs_autotune.size()},
                     {"vs_autotune_geomean", geomean(interleaved_vs_autotune)},
                     {"confirmed_wins_vs_autotune", interleaved_wins_vs_autotune},
                     {"confirmed_losses_vs_autotune", interleaved_losses_vs_autotune}}},
                   {"histogram", hist_json},
                   {"failures", failures},
                   {"unmeasured", unmeasured},
                   {"stale", stale},
                   {"task_changed", task_changed},
                   {"roofline_other_card", roofline_other_card},
                   {"bench_revision", kBenchRevision},
                   {"actionability", summarize_actionability(entries)}};
  // The suite's targets, each with what was measured (and, for the speed targets, its value at
  // the roofline floor: above it, no rewrite can meet them).
  s["targets"] = evaluate_bench_targets(targets, s);
  s["targets_source"] = targets.source;
  return s;
}

namespace {

// "89% -> 97%": the initial kernel's fraction of its roofline floor, then the optimized one's.
std::string roofline_cell(const nlohmann::json& e) {
  if (!roofline_fits_card(e)) return "not counted (another card's ceilings)";
  const double initial = entry_number(e, {"initial", "roofline_fraction"});
  const double best = entry_number(e, {"tritondx", "roofline_fraction"});
  if (best <= 0) return "-";
  return initial > 0 ? percent(initial) + " -> " + percent(best) : percent(best);
}

// "2.18x [2.15, 2.21]": the interleaved rounds' speedup and its 95% interval.
std::string interleaved_cell(const nlohmann::json& e) {
  const double x = entry_number(e, {"interleaved", "tritondx", "speedup"});
  if (x <= 0) return "-";
  const auto& ci = e["interleaved"]["tritondx"].value("ci95", nlohmann::json::array());
  if (!ci.is_array() || ci.size() != 2) return fmt_x(x);
  return fmt::format("{} [{:.2f}, {:.2f}]", fmt_x(x), ci[0].get<double>(), ci[1].get<double>());
}

}  // namespace

std::string render_bench_markdown(const nlohmann::json& s, const std::vector<nlohmann::json>& entries) {
  std::ostringstream md;
  md << "# tritondx benchmark results\n\n";
  std::string cards;
  for (const auto& c : s["cards"]) cards += (cards.empty() ? "" : ", ") + c.get<std::string>();
  if (cards.empty())
    md << fmt::format("{} of {} suite entries have results; none was measured on a GPU (the searches ran without "
                      "one: their actionable findings are below).\n\n",
                      s["results"].get<size_t>(), s["suite_entries"].get<int>());
  else
    md << fmt::format("{} of {} suite entries have results; {} measured on {}.\n\n", s["results"].get<size_t>(),
                      s["suite_entries"].get<int>(), s["measured"].get<int>(), cards);
  if (!s["stale"].empty()) {
    std::string stale;
    for (const auto& id : s["stale"]) stale += (stale.empty() ? "" : ", ") + id.get<std::string>();
    md << fmt::format("{} result(s) of an older bench revision (what tritondx did then) are listed but not "
                      "counted: {}.\n\n", s["stale"].size(), stale);
  }
  if (s.contains("task_changed") && !s["task_changed"].empty()) {
    std::string names;
    for (const auto& id : s["task_changed"]) names += (names.empty() ? "" : ", ") + id.get<std::string>();
    md << fmt::format("{} result(s) measured an earlier version of their task file, which has changed since (a "
                      "docstring, the shapes candidates are verified at, the torch baseline, ...): they are counted "
                      "as measured, and the next run of the bench measures them again: {}.\n\n",
                      s["task_changed"].size(), names);
  }
  if (s.contains("roofline_other_card") && !s["roofline_other_card"].empty()) {
    std::string names;
    for (const auto& id : s["roofline_other_card"]) names += (names.empty() ? "" : ", ") + id.get<std::string>();
    md << fmt::format("The roofline of {} entr{} was computed against the ceilings of another card than the one that "
                      "measured it (the default target, nvidia-h200, for a run on another GPU): its roofline fractions "
                      "and floors are not counted: {}.\n\n",
                      s["roofline_other_card"].size(), s["roofline_other_card"].size() == 1 ? "y" : "ies", names);
  }
  md << "## Summary\n\n| metric | value |\n|---|---|\n";
  md << fmt::format("| geomean speedup (initial -> tritondx) | {} |\n", fmt_x(s["geomean_speedup"]));
  md << fmt::format("| median speedup | {} |\n", fmt_x(s["median_speedup"]));
  md << fmt::format("| entries above 2x / above 5x | {} / {} |\n", s["above_2x"].get<int>(), s["above_5x"].get<int>());
  if (s.value("roofline_entries", 0) > 0)
    md << fmt::format("| roofline fraction of the optimized kernels (geomean) | {:.0f}% over {} entries |\n",
                      100 * s["roofline_fraction_geomean"].get<double>(), s.value("roofline_entries", 0));
  else
    md << "| roofline fraction of the optimized kernels (geomean) | not measured: no entry has a roofline against "
          "the card that measured it |\n";
  md << fmt::format("| tritondx over autotune-only (geomean) | {}; faster on {} of {}, {} more within 1% |\n",
                    fmt_x(s["vs_autotune_geomean"]), s["wins_vs_autotune"].get<int>(),
                    s["compared_with_autotune"].get<int>(), s.value("within_1pct_of_autotune", 0));
  md << fmt::format("| faster than torch.compile | {} of {}; {} more within 1% |\n", s["wins_vs_torch_compile"].get<int>(),
                    s["compared_with_torch_compile"].get<int>(), s["within_1pct_of_torch_compile"].get<int>());
  md << fmt::format("| median GPU evaluations per entry (tritondx) | {:.0f} |\n", s["median_gpu_evaluations"].get<double>());
  md << fmt::format("| candidates right at the benchmark's shapes, wrong at a test shape (rejected) | {} |\n",
                    s.value("rejected_only_at_test_shapes", 0));
  md << fmt::format("| median wall time per entry (all peers) | {:.0f} s |\n", s["median_wall_seconds"].get<double>());
  if (const auto& i = s.value("interleaved", nlohmann::json::object()); i.value("entries", 0) > 0) {
    md << fmt::format("| interleaved rounds: speedup over the initial kernel (geomean, median) | {}, {} over {} "
                      "entries; a confirmed win (>= 1.05x, 95% interval above 1) on {}; the search's own timing "
                      "put them {:+.1f}% higher (geomean) |\n",
                      fmt_x(i["geomean_speedup"]), fmt_x(i["median_speedup"]), i["entries"].get<size_t>(),
                      i["confirmed_wins"].get<int>(),
                      100 * (i.value("search_over_interleaved_geomean", 1.0) - 1));
    md << fmt::format("| interleaved rounds: tritondx over autotune-only (geomean) | {} over {} entries; a confirmed "
                      "win on {}; slower (95% interval below 1) on {} |\n",
                      fmt_x(i["vs_autotune_geomean"]), i["vs_autotune_entries"].get<size_t>(),
                      i["confirmed_wins_vs_autotune"].get<int>(), i.value("confirmed_losses_vs_autotune", 0));
  } else {
    md << "| interleaved rounds (the chosen kernels timed again side by side) | not measured: no entry result has "
          "them yet |\n";
  }
  std::string reach;
  for (const auto& [level, count] : s["ladder_reach"].items()) reach += fmt::format("{}{} {}", reach.empty() ? "" : ", ", level, count.get<int>());
  md << fmt::format("| ladder reach (entries per highest level used) | {} |\n\n", reach.empty() ? "-" : reach);
  md << "## Targets\n\n";
  if (const fs::path source = s.value("targets_source", "built-in"); source != "built-in")
    md << fmt::format("From `{}`.\n\n", (source.parent_path().filename() / source.filename()).string());
  md << "| target | measured | at the roofline floor | met |\n|---|---|---|---|\n";
  for (const auto& t : s["targets"])
    md << fmt::format("| {} | {} | {} | {} |\n", t["target"].get<std::string>(), t["measured"].get<std::string>(),
                      t.contains("at_roofline_floor")
                          ? t["at_roofline_floor"].get<std::string>() + (t.value("reachable", false) ? "" : " (out of reach)")
                          : "-",
                      t["met"].get<bool>() ? "yes" : "no");
  if (s.contains("at_roofline_floor") && s["at_roofline_floor"].value("entries", 0) > 0)
    md << fmt::format("\n\"At the roofline floor\" is what the number would be if every kernel ran at its roofline "
                      "floor ({} entries: the initial kernel's time, or autotune-only's, over the floor, whose ceilings "
                      "were measured on the card). It bounds what any rewrite of these initial kernels can reach: a "
                      "target above it is out of reach on this suite, whatever the optimizer does.\n",
                      s["at_roofline_floor"]["entries"].get<size_t>());
  if (const auto& a = s.value("actionability", nlohmann::json::object()); a.value("entries", 0) > 0) {
    const int considered = a.value("with_recipe", 0) - a.value("not_reached", 0);
    md << fmt::format("\n## Actionable findings\n\nOver the searches of {} entries (with or without a GPU): {} "
                      "findings proposed a built-in recipe; {} of the {} the search reached led to an evaluated "
                      "candidate ({:.0f}%), {} were declined by every recipe they proposed, {} applied after the "
                      "search's budget was spent, and {} sat on candidates never expanded at their level. {} more "
                      "findings proposed only advice (no recipe makes that change; the LLM rewriter gets it).\n",
                      a.value("entries", 0), a.value("with_recipe", 0), a.value("evaluated", 0), considered,
                      100 * a.value("evaluated_share", 0.0), a.value("declined", 0), a.value("budget", 0),
                      a.value("not_reached", 0), a.value("advice_only", 0));
    if (!a["declines"].empty()) {
      md << "\n| decline (a finding's recipe and its reason; numbers and quoted names generalized) | findings | "
            "entries |\n|---|---|---|\n";
      for (const auto& d : a["declines"]) {
        std::string where;
        for (const auto& id : d["entries"]) where += (where.empty() ? "" : ", ") + id.get<std::string>();
        std::string text = d["decline"].get<std::string>();
        for (auto& c : text)
          if (c == '|') c = '/';
        md << fmt::format("| {} | {} | {} |\n", text, d["findings"].get<int>(), where);
      }
    }
  }
  md << "\n## Entries\n\nTimes are medians in ms of flushed per-call CUDA events, all measured in the same run. "
        "Speedups are over the initial kernel.\n\n"
        "The roofline column is the initial kernel's fraction of its roofline floor, then tritondx's. The "
        "interleaved column is the speedup when the initial kernel and tritondx's were timed again in rounds, "
        "side by side in one process, with its 95% interval.\n\n"
        "| entry | initial | tritondx | speedup | interleaved | roofline | autotune-only | torch eager | torch.compile | ladder | GPU evals | path |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : entries) {
    std::string status = e.value("status", "");
    std::string path;
    if (e.contains("tritondx"))
      for (const auto& step : e["tritondx"]["best_path"])
        path += (path.empty() ? "" : " + ") + step.value("recipe", "");
    if (status == "failed") path = "failed: " + e.value("error", "").substr(0, 120);
    if (status == "unmeasured") path = "not measured (no GPU)";
    else if (bench_revision(e) != kBenchRevision)
      path = fmt::format("stale: bench revision {} (now {}), not counted; run again", bench_revision(e), kBenchRevision);
    if (e.value("task_changed", false)) path += " (task file changed since)";
    md << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", e.value("entry", ""),
                      format_ms(entry_number(e, {"initial", "median_ms"})), format_ms(entry_number(e, {"tritondx", "median_ms"})),
                      fmt_x(entry_number(e, {"tritondx", "speedup"})), interleaved_cell(e),
                      roofline_cell(e),
                      format_ms(entry_number(e, {"autotune_only", "median_ms"})), format_ms(entry_number(e, {"torch", "eager", "median_ms"})),
                      format_ms(entry_number(e, {"torch", "compile", "median_ms"})),
                      e.contains("tritondx") ? ladder_reach(e["tritondx"]) : "",
                      static_cast<int>(entry_number(e, {"tritondx", "gpu_evaluations"})), path.empty() ? "(initial kept)" : path);
  }
  if (!s["failures"].empty()) {
    md << "\n## Failures (scored 1.0x, listed rather than dropped)\n\n";
    for (const auto& f : s["failures"]) md << fmt::format("- {}: {}\n", f["entry"].get<std::string>(), f["why"].get<std::string>());
  }
  return md.str();
}

std::string render_speedup_svg(const nlohmann::json& s) {
  const int w = 640, h = 320, left = 50, bottom = 50, top = 40;
  double most = 1;
  for (const auto& b : s["histogram"]) most = std::max(most, b["count"].get<double>());
  size_t bins = s["histogram"].size();
  double bar = static_cast<double>(w - left - 20) / static_cast<double>(bins);
  std::ostringstream svg;
  svg << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
                     "font-size=\"11\">\n",
                     w, h);
  svg << fmt::format("<text x=\"{}\" y=\"20\" font-size=\"14\">Speedup over the initial kernel: {} entries, geomean {}, "
                     "median {}</text>\n",
                     left, s["measured"].get<int>(), fmt_x(s["geomean_speedup"]), fmt_x(s["median_speedup"]));
  svg << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", left, h - bottom, w - 20, h - bottom);
  for (size_t i = 0; i < bins; ++i) {
    const auto& b = s["histogram"][i];
    double count = b["count"].get<double>();
    double bh = (h - bottom - top) * count / most;
    double x = left + bar * static_cast<double>(i);
    svg << fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#4878a8\"/>\n", x + 4,
                       h - bottom - bh, bar - 8, bh);
    if (count > 0)
      svg << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x + bar / 2,
                         h - bottom - bh - 4, static_cast<int>(count));
    svg << fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x + bar / 2, h - bottom + 16,
                       b["bin"].get<std::string>());
  }
  svg << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">speedup (entries per bin)</text>\n", w / 2, h - 12);
  svg << "</svg>\n";
  return svg.str();
}

Expected<std::vector<std::string>> write_bench_summary(const std::string& out_dir, int suite_size,
                                                       const std::string& suite_dir) {
  auto targets = TDX_TRY(load_bench_targets(suite_dir));
  auto entries = load_entry_results(out_dir);
  mark_changed_tasks(entries, suite_dir);
  auto s = summarize_bench(entries, suite_size, targets);
  fs::path dir(out_dir);
  std::vector<std::pair<fs::path, std::string>> files{{dir / "summary.json", s.dump(2) + "\n"},
                                                       {dir / "summary.md", render_bench_markdown(s, entries)},
                                                       {dir / "speedups.svg", render_speedup_svg(s)}};
  std::vector<std::string> out;
  for (const auto& [p, text] : files) {
    std::ofstream f(p);
    if (!(f << text)) return fail(Stage::Store, fmt::format("cannot write {}", p.string()));
    out.push_back(p.string());
  }
  return out;
}

}  // namespace tdx
