// A suite's targets: bench/corpus/targets.json read and measured against a summary; the built-in
// targets without a file; a malformed file named in the error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tritondx/bench/bench_entry.h"
#include "tritondx/bench/bench_summary.h"
#include "tritondx/bench/bench_targets.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

nlohmann::json entry(const std::string& id, double initial, double best, double autotune, double compiled) {
  return {{"entry", id},
          {"status", "ok"},
          {"bench_revision", kBenchRevision},
          {"card", "NVIDIA H100 80GB HBM3"},
          {"initial", {{"median_ms", initial}}},
          {"tritondx", {{"median_ms", best}, {"speedup", initial / best}, {"roofline_fraction", 0.9},
                        {"best_path", nlohmann::json::array()}}},
          {"autotune_only", {{"median_ms", autotune}}},
          {"torch", {{"compile", {{"median_ms", compiled}}}}}};
}

TEST(BenchTargets, CorpusTargetsComeFromItsFile) {
  auto targets = load_bench_targets(std::string(TRITONDX_SOURCE_DIR) + "/bench/corpus");
  ASSERT_TRUE(targets.has_value()) << targets.error().to_string();
  EXPECT_EQ(targets->min_entries, 30);
  ASSERT_EQ(targets->targets.size(), 5u);
  EXPECT_EQ(targets->targets[0].metric, "not_slower_than_autotune_share");
  EXPECT_EQ(targets->targets[1].metric, "vs_autotune_geomean");
  EXPECT_DOUBLE_EQ(targets->targets[1].value, 1.3);

  // 30 entries: 29 tie autotune-only, one is 1.5x faster than it and than torch.compile.
  std::vector<nlohmann::json> entries;
  for (int i = 0; i < 29; ++i) entries.push_back(entry("x/tie" + std::to_string(i), 1.0, 1.0, 1.0, 0.9));
  entries.push_back(entry("x/win", 3.0, 1.0, 1.5, 1.5));
  auto s = summarize_bench(entries, 46, *targets);
  EXPECT_EQ(s["not_slower_than_autotune"], 30);
  const auto& t = s["targets"];
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0]["target"], "tritondx >= autotune-only on every kernel");
  EXPECT_EQ(t[0]["measured"], "30 of 30");
  EXPECT_TRUE(t[0]["met"].get<bool>());
  EXPECT_EQ(t[1]["measured"], "1.01x");
  EXPECT_FALSE(t[1]["met"].get<bool>());
  EXPECT_TRUE(t[2]["met"].get<bool>());  // 90% of roofline
  EXPECT_EQ(t[3]["measured"], "1 of 30");
  EXPECT_FALSE(t[3]["met"].get<bool>());
  EXPECT_NE(render_bench_markdown(s, entries).find("From `corpus/targets.json`."), std::string::npos);

  // Below min_entries nothing is met, whatever the numbers.
  entries.resize(10);
  EXPECT_FALSE(summarize_bench(entries, 46, *targets)["targets"][0]["met"].get<bool>());
}

// Actionability needs searches, not timings: 30 entries searched without a GPU meet its target
// (19 of 20 findings evaluated) while every timing target stays unmet.
TEST(BenchTargets, ActionabilityCountsSearchedEntriesWithoutAGpu) {
  auto targets = load_bench_targets(std::string(TRITONDX_SOURCE_DIR) + "/bench/corpus");
  ASSERT_TRUE(targets.has_value()) << targets.error().to_string();
  std::vector<nlohmann::json> entries;
  for (int i = 0; i < 30; ++i) {
    nlohmann::json a{{"with_recipe", 1}, {"evaluated", i == 0 ? 0 : 1}, {"not_reached", 0}, {"declined", i == 0 ? 1 : 0}};
    if (i >= 20) a = {{"with_recipe", 0}, {"evaluated", 0}, {"not_reached", 0}};
    entries.push_back({{"entry", "x/e" + std::to_string(i)}, {"status", "unmeasured"}, {"bench_revision", kBenchRevision},
                       {"tritondx", {{"candidates", 1}, {"actionability", a}}}});
  }
  auto s = summarize_bench(entries, 46, *targets);
  for (const auto& t : s["targets"]) {
    if (t["metric"] == "actionable_share") {
      EXPECT_EQ(t["measured"], "95% of 20");
      EXPECT_TRUE(t["met"].get<bool>());
    } else {
      EXPECT_FALSE(t["met"].get<bool>()) << t.dump();
    }
  }
  entries.resize(29);  // below min_entries searched: not met
  for (const auto& t : summarize_bench(entries, 46, *targets)["targets"])
    if (t["metric"] == "actionable_share") EXPECT_FALSE(t["met"].get<bool>());
}

TEST(BenchTargets, TheSuiteWithoutAFileUsesTheBuiltInTargets) {
  auto targets = load_bench_targets(std::string(TRITONDX_SOURCE_DIR) + "/bench/suite");
  ASSERT_TRUE(targets.has_value());
  EXPECT_EQ(targets->source, "built-in");
  EXPECT_EQ(targets->min_entries, 40);
  ASSERT_EQ(targets->targets.size(), default_bench_targets().targets.size());
  EXPECT_EQ(targets->targets[0].label, "geomean speedup >= 4.5x over >= 40 entries");
}

TEST(BenchTargets, AMalformedFileIsAnErrorNamingIt) {
  const fs::path dir = fs::temp_directory_path() / "tritondx-bench-targets";
  fs::create_directories(dir);
  auto write = [&](const std::string& text) { std::ofstream(dir / "targets.json") << text; };
  write(R"({"targets": [{"metric": "speed", "value": 2}]})");
  auto unknown = load_bench_targets(dir.string());
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().to_string().find("targets.json: unknown metric \"speed\""), std::string::npos)
      << unknown.error().to_string();
  write("not json");
  auto broken = load_bench_targets(dir.string());
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().to_string().find("not a JSON object"), std::string::npos);
  write(R"({"targets": [{"metric": "median_gpu_evaluations", "compare": "<", "value": 16}]})");
  EXPECT_FALSE(load_bench_targets(dir.string()).has_value());
  fs::remove_all(dir);
}

// Entries measured on an H100 whose roofline used the H200's ceilings (the default target before
// the roofline followed the card): their fractions and floors are not counted, and are listed.
TEST(BenchTargets, ARooflineAgainstAnotherCardIsNotCounted) {
  auto h200_run = entry("x/h200", 2.0, 1.0, 1.0, 1.0);
  h200_run["card"] = "NVIDIA H200";
  h200_run["roofline"] = {{"floor_ms", 0.5}, {"bound", "memory"}};  // no target: nvidia-h200
  auto h100_run = entry("x/h100", 2.0, 1.0, 1.0, 1.0);
  h100_run["tritondx"]["roofline_fraction"] = 0.4;
  h100_run["roofline"] = {{"floor_ms", 0.4}, {"bound", "memory"}};
  auto h100_own = entry("x/h100-own", 2.0, 1.0, 1.0, 1.0);
  h100_own["roofline"] = {{"floor_ms", 0.4}, {"bound", "memory"}, {"target", "nvidia-h100"}};
  EXPECT_TRUE(roofline_fits_card(h200_run));
  EXPECT_FALSE(roofline_fits_card(h100_run));
  EXPECT_TRUE(roofline_fits_card(h100_own));
  std::vector<nlohmann::json> entries{h200_run, h100_run};
  auto s = summarize_bench(entries, 2);
  EXPECT_EQ(s["roofline_other_card"], nlohmann::json::array({"x/h100"}));
  EXPECT_NEAR(s["roofline_fraction_geomean"].get<double>(), 0.9, 1e-9);  // the H200 entry's alone
  EXPECT_EQ(s["at_roofline_floor"]["entries"], 1u);
  auto md = render_bench_markdown(s, entries);
  EXPECT_NE(md.find("its roofline fractions and floors are not counted: x/h100."), std::string::npos);
  EXPECT_NE(md.find("not counted (another card's ceilings)"), std::string::npos);
}

}  // namespace
}  // namespace tdx
