// The summary's arithmetic and what it lists, over entry results shaped as run_bench_entry writes them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tritondx/bench/bench_entry.h"
#include "tritondx/bench/bench_summary.h"
#include "tritondx/store/sha256.h"

namespace tdx {
namespace {

nlohmann::json measured(const std::string& id, double initial, double best, double autotune, double compiled,
                        double fraction, int evals, const std::string& reach) {
  return {{"entry", id},
          {"status", "ok"},
          {"bench_revision", kBenchRevision},
          {"card", "NVIDIA H200"},
          {"initial", {{"median_ms", initial}}},
          {"tritondx",
           {{"median_ms", best}, {"speedup", initial / best}, {"roofline_fraction", fraction}, {"gpu_evaluations", evals},
            {"ladder_reach", reach}, {"best_path", nlohmann::json::array({{{"recipe", "grow-block"}}})}}},
          {"autotune_only", {{"median_ms", autotune}}},
          {"torch", {{"eager", {{"median_ms", compiled * 2}}}, {"compile", {{"median_ms", compiled}}}}},
          {"wall_seconds", 100.0}};
}

TEST(BenchSummary, GeomeanMedianCountsAndWins) {
  std::vector<nlohmann::json> entries{
      measured("a/one", 4.0, 1.0, 2.0, 1.5, 0.8, 10, "L1"),   // 4x, beats autotune and compile
      measured("a/two", 1.0, 1.0, 0.9, 0.5, 0.5, 20, "L3"),   // 1x, loses to both
      measured("b/three", 9.0, 1.0, 1.0, 2.0, 0.9, 12, "L3"),  // 9x, ties autotune (not a win)
  };
  entries.push_back({{"entry", "c/failed"}, {"status", "failed"}, {"bench_revision", kBenchRevision}, {"error", "the original kernel cannot be optimized"}});
  entries.push_back({{"entry", "c/cpu"}, {"status", "unmeasured"}});
  auto old = measured("d/old", 100.0, 1.0, 1.0, 1.0, 0.9, 1, "L1");
  old.erase("bench_revision");  // written before the field existed: revision 1
  entries.push_back(old);
  auto s = summarize_bench(entries, 41);
  EXPECT_EQ(s["suite_entries"], 41);
  EXPECT_EQ(s["results"], 6u);
  EXPECT_EQ(s["stale"], nlohmann::json::array({"d/old"}));  // listed, not counted (its 100x is not in the geomean)
  EXPECT_EQ(s["measured"], 4);  // the failure counts at 1.0x; the unmeasured entry does not count
  EXPECT_NEAR(s["geomean_speedup"].get<double>(), std::pow(4.0 * 1.0 * 9.0 * 1.0, 0.25), 1e-9);
  EXPECT_NEAR(s["median_speedup"].get<double>(), 2.5, 1e-9);
  EXPECT_EQ(s["above_2x"], 2);
  EXPECT_EQ(s["above_5x"], 1);
  EXPECT_EQ(s["wins_vs_autotune"], 1);
  EXPECT_EQ(s["compared_with_autotune"], 3);
  EXPECT_NEAR(s["vs_autotune_geomean"].get<double>(), std::pow(2.0 * 0.9 * 1.0, 1.0 / 3), 1e-9);
  EXPECT_EQ(s["wins_vs_torch_compile"], 2);
  EXPECT_NEAR(s["roofline_fraction_geomean"].get<double>(), std::pow(0.8 * 0.5 * 0.9, 1.0 / 3), 1e-9);
  EXPECT_EQ(s["ladder_reach"]["L3"], 2);
  EXPECT_EQ(s["ladder_reach"]["L1"], 1);
  EXPECT_EQ(s["median_gpu_evaluations"].get<double>(), 12);
  ASSERT_EQ(s["failures"].size(), 1u);
  EXPECT_EQ(s["failures"][0]["entry"], "c/failed");
  ASSERT_EQ(s["unmeasured"].size(), 1u);
  int binned = 0;
  for (const auto& b : s["histogram"]) binned += b["count"].get<int>();
  EXPECT_EQ(binned, 4);
  for (const auto& t : s["targets"]) EXPECT_FALSE(t["met"].get<bool>()) << t.dump();  // 4 entries, not 40
}

// A loss by at most 1% is counted apart (a tie at the bandwidth), still not as a win.
TEST(BenchSummary, CountsLossesWithinOnePercentOfTorchCompileApart) {
  std::vector<nlohmann::json> entries{
      measured("a/win", 2.0, 0.99, 1.0, 1.0, 0.9, 10, "L1"),
      measured("a/tie", 2.0, 1.008, 1.0, 1.0, 0.9, 10, "L1"),
      measured("a/loss", 2.0, 1.02, 1.0, 1.0, 0.9, 10, "L1"),
  };
  auto s = summarize_bench(entries, 41);
  EXPECT_EQ(s["wins_vs_torch_compile"], 1);
  EXPECT_EQ(s["within_1pct_of_torch_compile"], 1);
  std::string md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("| faster than torch.compile | 1 of 3; 1 more within 1% |"), std::string::npos) << md;
}

// The same tie count against autotune-only: at the bandwidth, tritondx and the grid often keep
// the same kernel, and a 0.3% difference either way is noise, not a loss.
TEST(BenchSummary, CountsLossesWithinOnePercentOfAutotuneApart) {
  std::vector<nlohmann::json> entries{
      measured("a/win", 2.0, 0.99, 1.0, 1.0, 0.9, 10, "L1"),
      measured("a/tie", 2.0, 1.0, 1.0, 1.0, 0.9, 10, "L1"),
      measured("a/near", 2.0, 1.008, 1.0, 1.0, 0.9, 10, "L1"),
      measured("a/loss", 2.0, 1.02, 1.0, 1.0, 0.9, 10, "L1"),
  };
  auto s = summarize_bench(entries, 41);
  EXPECT_EQ(s["wins_vs_autotune"], 1);
  EXPECT_EQ(s["within_1pct_of_autotune"], 2);
  std::string md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("faster on 1 of 4, 2 more within 1% |"), std::string::npos) << md;
}

TEST(BenchSummary, MarkdownListsEveryEntryAndTheFailures) {
  std::vector<nlohmann::json> entries{measured("a/one", 4.0, 1.0, 2.0, 1.5, 0.8, 10, "L1")};
  entries.push_back({{"entry", "c/failed"}, {"status", "failed"}, {"bench_revision", kBenchRevision}, {"error", "the original kernel cannot be optimized"}});
  auto s = summarize_bench(entries, 41);
  std::string md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("| a/one | 4.0000 | 1.0000 | 4.00x | - | 80% | 2.0000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Failures"), std::string::npos);
  EXPECT_NE(md.find("c/failed: the original kernel cannot be optimized"), std::string::npos);
  std::string svg = render_speedup_svg(s);
  EXPECT_TRUE(svg.starts_with("<svg")) << svg;
  EXPECT_NE(svg.find("3-5x"), std::string::npos);
}

// A result that measured an earlier version of its task file is still counted, and listed so that
// it is run again; one whose task is unchanged, or whose task is gone from the suite, is not listed.
TEST(BenchSummary, ListsResultsWhoseTaskFileChangedSinceTheyWereMeasured) {
  namespace fs = std::filesystem;
  fs::path suite = fs::path(::testing::TempDir()) / "changed_task_suite";
  fs::remove_all(suite);
  fs::create_directories(suite / "a");
  for (const char* name : {"same", "edited"}) std::ofstream(suite / "a" / (std::string(name) + ".py")) << "v1\n";
  std::vector<nlohmann::json> entries{measured("a/same", 2.0, 1.0, 1.0, 1.0, 0.5, 10, "L1"),
                                      measured("a/edited", 2.0, 1.0, 1.0, 1.0, 0.5, 10, "L1"),
                                      measured("a/gone", 2.0, 1.0, 1.0, 1.0, 0.5, 10, "L1")};
  for (auto& e : entries) e["task_sha256"] = sha256_hex("v1\n");
  std::ofstream(suite / "a" / "edited.py") << "v2\n";
  mark_changed_tasks(entries, suite.string());
  auto s = summarize_bench(entries, 3);
  EXPECT_EQ(s["task_changed"], nlohmann::json::array({"a/edited"}));
  EXPECT_EQ(s["measured"], 3);
  std::string md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("1 result(s) measured an earlier version of their task file"), std::string::npos) << md;
  EXPECT_NE(md.find("grow-block (task file changed since) |"), std::string::npos) << md;
}

// The speed targets' values at the roofline floor: the initial kernel's (and autotune-only's) time
// over the floor, the most any rewrite can reach; a kernel already under its floor counts 1x.
TEST(BenchSummary, SpeedTargetsSayWhatTheRooflineFloorAllows) {
  auto with_floor = [](nlohmann::json e, double floor_ms) {
    e["roofline"] = {{"floor_ms", floor_ms}, {"bound", "memory"}};
    return e;
  };
  std::vector<nlohmann::json> entries{
      with_floor(measured("a/far", 8.0, 2.0, 4.0, 3.0, 0.5, 10, "L1"), 1.0),     // 8x at the floor, 4x over autotune
      with_floor(measured("a/near", 1.1, 1.05, 1.1, 1.2, 0.95, 10, "L1"), 1.0),  // 1.1x at the floor
      with_floor(measured("a/under", 0.99, 0.99, 0.99, 1.0, 1.0, 1, "L1"), 1.0),  // under its floor: 1x
  };
  auto s = summarize_bench(entries, 41);
  EXPECT_EQ(s["at_roofline_floor"]["entries"], 3u);
  EXPECT_NEAR(s["at_roofline_floor"]["geomean_speedup"].get<double>(), std::pow(8.0 * 1.1 * 1.0, 1.0 / 3), 1e-9);
  EXPECT_NEAR(s["at_roofline_floor"]["median_speedup"].get<double>(), 1.1, 1e-9);
  EXPECT_NEAR(s["at_roofline_floor"]["vs_autotune_geomean"].get<double>(), std::pow(4.0 * 1.1 * 1.0, 1.0 / 3), 1e-9);
  EXPECT_EQ(s["targets"][0]["at_roofline_floor"], "2.06x");
  EXPECT_FALSE(s["targets"][0]["reachable"].get<bool>());
  EXPECT_EQ(s["targets"][1]["at_roofline_floor"], "1.10x");
  EXPECT_EQ(s["targets"][2]["at_roofline_floor"], "1.64x");
  EXPECT_FALSE(s["targets"][3].contains("at_roofline_floor"));  // the roofline target itself
  std::string md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("| median speedup >= 3.0x | 1.05x | 1.10x (out of reach) | no |"), std::string::npos) << md;
  EXPECT_NE(md.find("| median <= 16 GPU evaluations per entry | 10 | - | no |"), std::string::npos) << md;
  // The entries table gives the initial kernel's roofline fraction next to tritondx's.
  entries[0]["initial"]["roofline_fraction"] = 0.125;
  md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("| a/far | 8.0000 | 2.0000 | 4.00x | - | 12% -> 50% | 4.0000 |"), std::string::npos) << md;

  // Far enough from the floor, the target is reachable.
  entries = {with_floor(measured("b/far", 8.0, 2.0, 4.0, 3.0, 0.5, 10, "L1"), 1.0)};
  s = summarize_bench(entries, 41);
  EXPECT_TRUE(s["targets"][0]["reachable"].get<bool>());
  EXPECT_TRUE(s["targets"][2]["reachable"].get<bool>());
}

// The interleaved rounds: their speedups are summarized apart, with the confirmed wins, and each
// entry's row gives its interval.
TEST(BenchSummary, InterleavedRoundsAreSummarizedWithTheirConfirmedWins) {
  auto with_rounds = [](nlohmann::json e, double speedup, bool confirmed, double vs_autotune, bool confirmed_vs) {
    e["interleaved"] = {{"tritondx", {{"speedup", speedup}, {"ci95", {speedup * 0.98, speedup * 1.01}}, {"confirmed", confirmed}}},
                        {"tritondx_over_autotune", {{"speedup", vs_autotune}, {"confirmed", confirmed_vs}}}};
    return e;
  };
  std::vector<nlohmann::json> entries{
      with_rounds(measured("a/one", 4.0, 1.0, 2.0, 1.5, 0.8, 10, "L1"), 3.9, true, 1.9, true),
      with_rounds(measured("a/two", 1.0, 0.98, 1.0, 1.5, 0.8, 10, "L1"), 1.01, false, 1.0, false),
      measured("a/three", 2.0, 1.0, 2.0, 1.5, 0.8, 10, "L1"),  // measured before the rounds existed
  };
  // a/two's kernel is 3% slower than autotune-only's in the rounds, its interval below 1.
  entries[1]["interleaved"]["tritondx_over_autotune"]["ci95"] = {0.96, 0.99};
  auto s = summarize_bench(entries, 41);
  EXPECT_EQ(s["interleaved"]["entries"], 2u);
  EXPECT_NEAR(s["interleaved"]["geomean_speedup"].get<double>(), std::sqrt(3.9 * 1.01), 1e-9);
  EXPECT_EQ(s["interleaved"]["confirmed_wins"], 1);
  EXPECT_NEAR(s["interleaved"]["vs_autotune_geomean"].get<double>(), std::sqrt(1.9 * 1.0), 1e-9);
  EXPECT_EQ(s["interleaved"]["confirmed_wins_vs_autotune"], 1);
  EXPECT_EQ(s["interleaved"]["confirmed_losses_vs_autotune"], 1);
  std::string md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("1.38x over 2 entries; a confirmed win on 1; slower (95% interval below 1) on 1 |"),
            std::string::npos)
      << md;
  // The search measured 4x and 1.0204x where the rounds measured 3.9x and 1.01x.
  EXPECT_NEAR(s["interleaved"]["search_over_interleaved_geomean"].get<double>(),
              std::sqrt(4.0 / 3.9 * (1.0 / 0.98) / 1.01), 1e-9);
  EXPECT_NE(md.find("| interleaved rounds: speedup over the initial kernel (geomean, median) | 1.98x, 2.46x over 2 "
                    "entries; a confirmed win (>= 1.05x, 95% interval above 1) on 1; the search's own timing put "
                    "them +1.8% higher (geomean) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| a/one | 4.0000 | 1.0000 | 4.00x | 3.90x [3.82, 3.94] | 80% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| a/three | 2.0000 | 1.0000 | 2.00x | - | 80% |"), std::string::npos) << md;

  md = render_bench_markdown(summarize_bench({measured("b/old", 2.0, 1.0, 2.0, 1.5, 0.8, 10, "L1")}, 41),
                             {measured("b/old", 2.0, 1.0, 2.0, 1.5, 0.8, 10, "L1")});
  EXPECT_NE(md.find("not measured: no entry result has them yet"), std::string::npos) << md;
}

// Merging: a result started later wins; of the same measurement, the one whose interleaved
// rounds were measured later (bench --confirm run elsewhere) wins.
TEST(BenchMerge, ALaterMeasurementOrLaterRoundsReplaceTheHeldResult) {
  nlohmann::json held{{"started", "2026-12-03T10:00:00Z"}};
  nlohmann::json later{{"started", "2026-12-04T10:00:00Z"}};
  EXPECT_TRUE(newer_result(later, held));
  EXPECT_FALSE(newer_result(held, later));
  EXPECT_FALSE(newer_result(held, held));
  EXPECT_TRUE(newer_result(held, nullptr));
  nlohmann::json confirmed = held;
  confirmed["interleaved"] = {{"measured_at", "2026-12-06T10:00:00Z"}};
  EXPECT_TRUE(newer_result(confirmed, held));
  EXPECT_FALSE(newer_result(held, confirmed));
  nlohmann::json reconfirmed = held;
  reconfirmed["interleaved"] = {{"measured_at", "2026-12-07T10:00:00Z"}};
  EXPECT_TRUE(newer_result(reconfirmed, confirmed));
  EXPECT_FALSE(newer_result(confirmed, reconfirmed));
}

// An entry whose search stayed at the L1 escalation but kept a rewrite of an L3 finding (a
// compiler-confirmed finding is used early) counts as reaching L3.
TEST(BenchSummary, LadderReachCountsTheLevelOfTheBestPath) {
  auto entry = measured("e/flat", 2.0, 1.0, 1.5, 1.1, 0.9, 2, "L1");
  entry["tritondx"]["best_path"] = nlohmann::json::array({{{"recipe", "flatten-contiguous-rows"}, {"level", "L3"}}});
  auto s = summarize_bench({entry, measured("e/tuned", 2.0, 1.0, 1.5, 1.1, 0.9, 2, "L1")}, 41);
  EXPECT_EQ(s["ladder_reach"]["L3"], 1);
  EXPECT_EQ(s["ladder_reach"]["L1"], 1);
}

// Actionability is summed over every entry's search, measured or not (a run without a GPU has
// it too), and its declines are grouped with their particulars generalized.
TEST(BenchSummary, SumsActionabilityAndGroupsDeclinesByKind) {
  auto declined = [](const std::string& reason) {
    return nlohmann::json{{"outcome", "declined"}, {"declines", {reason}}};
  };
  auto with = [](nlohmann::json entry, int with_recipe, int evaluated, int not_reached, nlohmann::json findings) {
    entry["tritondx"]["actionability"] = {{"with_recipe", with_recipe}, {"evaluated", evaluated},
                                          {"declined", static_cast<int>(findings.size())}, {"budget", 0},
                                          {"not_reached", not_reached}, {"advice_only", 1}, {"findings", findings}};
    return entry;
  };
  auto a = with(measured("a/one", 2.0, 1.0, 1.5, 1.1, 0.9, 2, "L1"), 5, 3, 1,
                {declined("grow-block: the launch computes BLOCK as `bs`"),
                 declined("set-num-warps: the autotuner already tries num_warps=8 with the diagnosed config's other values")});
  nlohmann::json cpu{{"entry", "b/cpu"},
                     {"status", "unmeasured"},
                     {"tritondx", {{"best_path", nlohmann::json::array()}, {"ladder_reach", "L3"}, {"gpu_evaluations", 0}}}};
  cpu = with(cpu, 3, 2, 0, {declined("grow-block: the launch computes BLOCK as `block_size(n)`")});
  auto s = summarize_bench({a, cpu}, 41);
  const auto& act = s["actionability"];
  EXPECT_EQ(act["entries"], 2);
  EXPECT_EQ(act["with_recipe"], 8);
  EXPECT_EQ(act["evaluated"], 5);
  EXPECT_EQ(act["advice_only"], 2);
  EXPECT_NEAR(act["evaluated_share"].get<double>(), 5.0 / 7, 1e-9);  // of the 7 findings reached
  ASSERT_EQ(act["declines"].size(), 2u);
  EXPECT_EQ(act["declines"][0]["decline"], "grow-block: the launch computes BLOCK as `X`");
  EXPECT_EQ(act["declines"][0]["findings"], 2);
  EXPECT_EQ(act["declines"][0]["entries"], nlohmann::json::array({"a/one", "b/cpu"}));
  std::string md = render_bench_markdown(s, {a, cpu});
  EXPECT_NE(md.find("## Actionable findings"), std::string::npos);
  EXPECT_NE(md.find("5 of the 7 the search reached led to an evaluated candidate (71%)"), std::string::npos) << md;
}

}  // namespace
}  // namespace tdx
