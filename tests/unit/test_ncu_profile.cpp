// Nsight Compute CSV exports and hot-line attribution, on real exports from an H200
// (tests/fixtures/ncu, see its README) joined with the SASS/LLVM IR of the same kernels.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tritondx/measure/ncu_profile.h"
#include "tritondx/measure/profile.h"

namespace tdx {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string fixture(const std::string& rel) { return read_text(std::string(TRITONDX_FIXTURES_DIR) + "/" + rel); }

NcuProfile load(const std::string& task) {
  NcuProfile p;
  auto d = parse_ncu_details_csv(fixture("ncu/" + task + ".details.csv"), p);
  EXPECT_TRUE(d.has_value()) << d.error().to_string();
  auto r = parse_ncu_raw_csv(fixture("ncu/" + task + ".raw.csv"), p);
  EXPECT_TRUE(r.has_value()) << r.error().to_string();
  auto s = parse_ncu_source_csv(fixture("ncu/" + task + ".source.csv"), p);
  EXPECT_TRUE(s.has_value()) << s.error().to_string();
  return p;
}

struct Compiled {
  SassModule sass;
  LlvmModule llir;
};

Compiled compiled(const std::string& task, const std::string& kernel) {
  Compiled c;
  auto sass = parse_sass(fixture("triton-3.6.0/" + task + "/" + kernel + ".sass"));
  EXPECT_TRUE(sass.has_value());
  if (sass) c.sass = std::move(*sass);
  auto llir = parse_llvm_ir(fixture("triton-3.6.0/" + task + "/" + kernel + ".llir"));
  EXPECT_TRUE(llir.has_value());
  if (llir) c.llir = std::move(*llir);
  return c;
}

const HotLine* line(const std::vector<HotLine>& lines, int n) {
  for (const auto& h : lines)
    if (h.loc.line == n) return &h;
  return nullptr;
}

TEST(NcuNumbers, ThousandsSeparatorsAndMissingValues) {
  EXPECT_DOUBLE_EQ(parse_ncu_number("339,484"), 339484);
  EXPECT_DOUBLE_EQ(parse_ncu_number("330,041.98"), 330041.98);
  EXPECT_DOUBLE_EQ(parse_ncu_number("45.54"), 45.54);
  EXPECT_DOUBLE_EQ(parse_ncu_number("-3"), -3);
  EXPECT_TRUE(std::isnan(parse_ncu_number("n/a")));
  EXPECT_TRUE(std::isnan(parse_ncu_number("")));
  EXPECT_TRUE(std::isnan(parse_ncu_number("PolicySpread")));
}

TEST(NcuNumbers, UnitScales) {
  EXPECT_DOUBLE_EQ(ncu_unit_scale("Mbyte"), 1e6);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("Tbyte/s"), 1e12);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("Kbyte/block"), 1e3);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("us"), 1e-6);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("Ghz"), 1e9);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("sector/ns"), 1e9);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("%"), 1);
  EXPECT_DOUBLE_EQ(ncu_unit_scale("cycle"), 1);
}

TEST(NcuCsv, QuotedFieldsWithCommasQuotesAndNewlines) {
  std::string csv =
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\","
      "\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\r\n"
      "\"0\",\"k\",\"S\",\"Elapsed Cycles\",\"cycle\",\"1,234\",\"\",\"\",\"\",\"\",\"\"\r\n"
      "\"0\",\"k\",\"S\",\"\",\"\",\"\",\"R\",\"OPT\",\"a, \"\"quoted\"\"\nsecond line\",\"global\",\"12.5\"\r\n"
      "\"1\",\"k\",\"S\",\"Elapsed Cycles\",\"cycle\",\"99\",\"\",\"\",\"\",\"\",\"\"\r\n";
  NcuProfile p;
  auto r = parse_ncu_details_csv(csv, p);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(p.kernel, "k");
  ASSERT_EQ(p.metrics.size(), 1u);  // the second result (ID 1) is not this kernel launch
  EXPECT_DOUBLE_EQ(p.metrics[0].value, 1234);
  ASSERT_EQ(p.rules.size(), 1u);
  EXPECT_EQ(p.rules[0].description, "a, \"quoted\"\nsecond line");
  EXPECT_DOUBLE_EQ(p.rules[0].estimated_speedup, 12.5);
}

TEST(NcuCsv, ErrorsNameThePageAndLine) {
  NcuProfile p;
  auto r = parse_ncu_details_csv("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n", p);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("details page"), std::string::npos);
  EXPECT_NE(r.error().message.find("Section Name"), std::string::npos);
  EXPECT_EQ(r.error().line, 1);
  auto q = parse_ncu_source_csv("\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n\"zz\",\"NOP\",\"1\"\n", p);
  ASSERT_FALSE(q.has_value());
  EXPECT_EQ(q.error().line, 2);
  auto u = parse_ncu_raw_csv("\"a\",\"b\n", p);
  ASSERT_FALSE(u.has_value());
  EXPECT_NE(u.error().message.find("unterminated"), std::string::npos);
}

TEST(NcuDetails, SoftmaxSpeedOfLightAndRules) {
  NcuProfile p = load("softmax");
  EXPECT_EQ(p.kernel, "softmax_kernel");
  EXPECT_EQ(p.block_size, "(128, 1, 1)");
  EXPECT_EQ(p.grid_size, "(16384, 1, 1)");
  auto duration = p.metric("GPU Speed Of Light Throughput", "Duration");
  ASSERT_NE(duration, nullptr);
  EXPECT_EQ(duration->unit, "us");
  EXPECT_NEAR(duration->value, 175.84, 1e-9);
  EXPECT_NEAR(duration->si(), 175.84e-6, 1e-12);
  EXPECT_NEAR(*p.value("GPU Speed Of Light Throughput", "DRAM Throughput"), 45.54, 1e-9);
  EXPECT_NEAR(*p.value("GPU Speed Of Light Throughput", "Elapsed Cycles"), 339484, 1e-9);
  EXPECT_NEAR(*p.value("Occupancy", "Achieved Occupancy"), 94.30, 1e-9);
  EXPECT_FALSE(p.value("GPU Speed Of Light Throughput", "No Such Metric"));
  // ncu's rules, with their estimated speedups where it gives one.
  auto cpi = p.rule_results("CPIStall");
  ASSERT_EQ(cpi.size(), 2u);
  EXPECT_EQ(cpi[0]->type, "OPT");
  EXPECT_EQ(cpi[0]->speedup_type, "local");
  EXPECT_NEAR(cpi[0]->estimated_speedup, 47.12, 1e-9);
  EXPECT_NE(cpi[0]->description.find("scoreboard dependency on a L1TEX"), std::string::npos);
  EXPECT_EQ(cpi[1]->type, "INF");
  auto sol = p.rule_results("SOLBottleneck");
  ASSERT_EQ(sol.size(), 1u);
  EXPECT_EQ(sol[0]->section, "SpeedOfLight");
  EXPECT_EQ(sol[0]->estimated_speedup, 0);
}

TEST(NcuDetails, MatmulOccupancyAndBankConflictRules) {
  NcuProfile p = load("matmul");
  EXPECT_NEAR(*p.value("Occupancy", "Theoretical Occupancy"), 50, 1e-9);
  EXPECT_NEAR(*p.value("Occupancy", "Block Limit Registers"), 8, 1e-9);
  EXPECT_NEAR(*p.value("Launch Statistics", "Registers Per Thread"), 64, 1e-9);
  auto occ = p.rule_results("TheoreticalOccupancy");
  ASSERT_EQ(occ.size(), 1u);
  EXPECT_NEAR(occ[0]->estimated_speedup, 17.77, 1e-9);
  EXPECT_EQ(p.rule_results("SharedMemoryConflicts").size(), 1u);
  EXPECT_EQ(p.rule_results("UncoalescedSharedAccess").size(), 1u);
  auto dyn = p.metric("Launch Statistics", "Dynamic Shared Memory Per Block");
  ASSERT_NE(dyn, nullptr);
  EXPECT_NEAR(dyn->si(), 24580, 1e-6);  // "Kbyte/block" 24.58
}

TEST(NcuRaw, ValuesUnitsAndText) {
  NcuProfile p = load("softmax");
  EXPECT_NEAR(*p.raw_value("gpu__time_duration.sum"), 175.84, 1e-9);
  EXPECT_NEAR(*p.raw_value("smsp__pcsamp_sample_count"), 21269, 1e-9);  // "21,269"
  EXPECT_NEAR(*p.raw_value("launch__occupancy_limit_registers"), 21, 1e-9);
  EXPECT_EQ(p.raw_units.at("dram__bytes_read.sum"), "Mbyte");
  EXPECT_NEAR(*p.raw_si("dram__bytes_read.sum"), 211.05152e6, 1);
  EXPECT_FALSE(p.raw_value("launch__func_cache_config"));  // text, not a number
  EXPECT_FALSE(p.raw_value("derived_tempMetric4"));        // printed "nan"
}

TEST(NcuSource, SamplesStallsAndMemoryCounters) {
  NcuProfile p = load("softmax");
  ASSERT_EQ(p.source.size(), 192u);
  EXPECT_EQ(p.source[0].address, 0u);
  EXPECT_EQ(p.source[0].absolute_address, 0x7f365f7b3000ull);
  EXPECT_EQ(p.source[1].address, 0x10u);
  EXPECT_EQ(p.source[0].sass, "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(p.total_samples(), 21269);  // the raw page's smsp__pcsamp_sample_count
  // The hottest instruction: the max reduction's first FMNMX, waiting on the row's loads.
  const NcuSourceInstruction* hottest = &p.source[0];
  for (const auto& s : p.source)
    if (s.samples > hottest->samples) hottest = &s;
  EXPECT_EQ(hottest->address, 0x300u);
  EXPECT_EQ(hottest->samples, 6979);
  EXPECT_EQ(hottest->stalls.at("long_sb"), 6862);
  // Its global loads: coalesced (no excessive sectors).
  for (const auto& s : p.source)
    if (s.address == 0x2b0) {
      EXPECT_EQ(s.sass, "@!P4  LDG.E R7, desc[UR10][R8.64]");
      EXPECT_EQ(s.l2_sectors, 3145728);
      EXPECT_EQ(s.l2_sectors_ideal, 3145728);
      EXPECT_EQ(s.l2_sectors_excessive, 0);
    }
}

TEST(NcuSource, ColumnsAbsentInSomeExportsReadAsZero) {
  NcuProfile p = load("vector_add");  // no "L1 Wavefronts Shared" columns: no shared memory
  ASSERT_EQ(p.source.size(), 96u);
  long long excessive = 0, shared = 0;
  for (const auto& s : p.source) {
    excessive += s.l2_sectors_excessive;
    shared += s.shared_wavefronts;
  }
  EXPECT_EQ(excessive, 56250000);  // ncu's UncoalescedGlobalAccess: "56250000 excessive sectors"
  EXPECT_EQ(shared, 0);
}

TEST(HotLines, AddressesLineUpWithTheSassListing) {
  for (auto [task, kernel] : {std::pair{"softmax", "softmax_kernel"}, std::pair{"vector_add", "add_kernel"},
                              std::pair{"matmul", "matmul_kernel"}}) {
    NcuProfile p = load(task);
    Compiled c = compiled(task, kernel);
    SassAlignment a = check_sass_alignment(p, c.sass);
    EXPECT_EQ(a.matched, static_cast<int>(p.source.size())) << task;
    EXPECT_EQ(a.mismatched, 0) << task;
    EXPECT_EQ(a.missing, 0) << task;
    EXPECT_TRUE(a.ok()) << task;
  }
}

TEST(HotLines, SoftmaxReductionsAreHotWaitingOnTheLoads) {
  NcuProfile p = load("softmax");
  Compiled c = compiled("softmax", "softmax_kernel");
  auto lines = attribute_hot_lines(p, c.sass, "/work/main/examples/softmax.py", &c.llir);
  ASSERT_GE(lines.size(), 3u);
  // Line 22, `row_max = tl.maximum(row_max, tl.max(x, axis=0))`: the tl.max reduction
  // (inlined from standard.py) waits on the loads of line 21: long scoreboard.
  EXPECT_EQ(lines[0].loc.line, 22);
  EXPECT_EQ(lines[0].samples, 11093);
  EXPECT_NEAR(lines[0].fraction, 11093.0 / 21269, 1e-9);
  EXPECT_EQ(lines[0].dominant_stall, "long_sb");
  EXPECT_EQ(lines[0].stalls.at("long_sb"), 6862);
  EXPECT_NEAR(lines[0].dominant_fraction, 6862.0 / 11093, 1e-9);
  EXPECT_GT(lines[0].inlined_samples, 10000);
  // Line 28, `denom += tl.sum(tl.exp(x - row_max), axis=0)`: the tl.sum's shuffles and shared
  // memory (short scoreboard) and the wait for line 27's loads (long scoreboard).
  EXPECT_EQ(lines[1].loc.line, 28);
  EXPECT_EQ(lines[1].samples, 6501);
  EXPECT_EQ(lines[1].dominant_stall, "short_sb");
  EXPECT_EQ(lines[1].stalls.at("long_sb"), 1958);
  // Line 33, the normalize-and-store pass.
  EXPECT_EQ(lines[2].loc.line, 33);
  EXPECT_EQ(lines[2].dominant_stall, "long_sb");
  // Sorted by samples; every attributed sample is on some line of softmax.py.
  long long sum = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) {
      EXPECT_GE(lines[i - 1].samples, lines[i].samples);
    }
    EXPECT_EQ(lines[i].loc.file, "/work/main/examples/softmax.py");
    sum += lines[i].samples;
  }
  EXPECT_EQ(sum, 21269);
}

TEST(HotLines, WithoutLlvmIrInlinedHelpersAreLeftOut) {
  NcuProfile p = load("softmax");
  Compiled c = compiled("softmax", "softmax_kernel");
  auto lines = attribute_hot_lines(p, c.sass, "/work/main/examples/softmax.py");
  const HotLine* l22 = line(lines, 22);
  ASSERT_NE(l22, nullptr);
  EXPECT_EQ(l22->samples, 238);  // only the FMNMX of tl.maximum itself
  EXPECT_EQ(l22->inlined_samples, 0);
}

TEST(HotLines, SourceFileMatchesByNameFromAnotherMachine) {
  NcuProfile p = load("softmax");
  Compiled c = compiled("softmax", "softmax_kernel");
  auto lines = attribute_hot_lines(p, c.sass, "/elsewhere/tests/softmax.py", &c.llir);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].loc.line, 22);
}

TEST(HotLines, VectorAddUncoalescedLinesAndStoreWait) {
  NcuProfile p = load("vector_add");
  Compiled c = compiled("vector_add", "add_kernel");
  auto lines = attribute_hot_lines(p, c.sass, "/work/main/examples/vector_add.py", &c.llir);
  ASSERT_GE(lines.size(), 2u);
  // Line 17 (x + y and the store) waits for the loads; line 15 (load of x) for the LSU queue.
  EXPECT_EQ(lines[0].loc.line, 17);
  EXPECT_EQ(lines[0].dominant_stall, "long_sb");
  EXPECT_EQ(lines[1].loc.line, 15);
  EXPECT_EQ(lines[1].dominant_stall, "lg");
  // Each of the three access lines wastes 3 of every 4 sectors: scalar 4-byte accesses 16 bytes apart.
  for (int n : {15, 16, 17}) {
    const HotLine* h = line(lines, n);
    ASSERT_NE(h, nullptr) << n;
    EXPECT_GT(h->l2_sectors, 0) << n;
    EXPECT_NEAR(static_cast<double>(h->l2_sectors_excessive) / static_cast<double>(h->l2_sectors), 0.75, 0.01) << n;
  }
}

TEST(HotLines, MatmulPipelineWaitAndSharedConflicts) {
  NcuProfile p = load("matmul");
  Compiled c = compiled("matmul", "matmul_kernel");
  auto lines = attribute_hot_lines(p, c.sass, "/work/main/examples/matmul.py", &c.llir);
  ASSERT_GE(lines.size(), 2u);
  // Line 28 (the load of A, cp.async): the wait for the copies in flight; line 30 (tl.dot): the barrier.
  EXPECT_EQ(lines[0].loc.line, 28);
  EXPECT_EQ(lines[0].dominant_stall, "long_sb");
  EXPECT_EQ(lines[1].loc.line, 30);
  EXPECT_EQ(lines[1].dominant_stall, "barrier");
  const HotLine* a = line(lines, 28);
  const HotLine* b = line(lines, 29);
  ASSERT_TRUE(a && b);
  EXPECT_GT(a->shared_wavefronts_excessive, 8000000);  // A's tile: bank conflicts on the cp.async stores
  EXPECT_EQ(b->shared_wavefronts_excessive, 0);        // B's tile: none
}

TEST(HotLines, ADifferentBuildIsNotAttributed) {
  NcuProfile p = load("softmax");
  Compiled c = compiled("vector_add", "add_kernel");  // another kernel's listing
  SassAlignment a = check_sass_alignment(p, c.sass);
  EXPECT_FALSE(a.ok());
  auto lines = attribute_hot_lines(p, c.sass, "/work/main/examples/vector_add.py", &c.llir);
  long long sum = 0;
  for (const auto& h : lines) sum += h.samples;
  EXPECT_LT(sum, p.total_samples() / 2);  // only the instructions that happen to coincide
}

TEST(HotLines, Json) {
  HotLine h;
  h.loc = {"k.py", 7, 0};
  h.samples = 10;
  h.dominant_stall = "long_sb";
  h.stalls["long_sb"] = 8;
  nlohmann::json j = h;
  EXPECT_EQ(j["line"], 7);
  EXPECT_EQ(j["stalls"]["long_sb"], 8);
  EXPECT_EQ(j["dominant_stall"], "long_sb");
}

// profile_kernel through the real bridge, with a stand-in `ncu` on PATH that exports the
// recorded softmax CSVs (the real one needs a GPU; see tests/python/test_profile_verb.py).
TEST(ProfileKernel, ThroughTheBridgeWithAStandInNcu) {
  namespace fs = std::filesystem;
  BridgeConfig config = BridgeConfig::from_environment();
  if (!fs::exists(config.python)) GTEST_SKIP() << "no Python for the bridge: " << config.python;
  fs::path dir = fs::temp_directory_path() / "tritondx-test-profile-kernel";
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  {
    std::ofstream ncu(dir / "bin" / "ncu");
    ncu << "#!" << config.python << "\n"
        << "import os, sys\n"
        << "a = sys.argv[1:]\n"
        << "if a == ['--version']: print('Version 2025.3.1.0'); sys.exit(0)\n"
        << "if '-i' in a:\n"
        << "    page = a[a.index('--page') + 1]\n"
        << "    sys.stdout.write(open('" << TRITONDX_FIXTURES_DIR << "/ncu/softmax.' + page + '.csv').read()); sys.exit(0)\n"
        << "open(a[a.index('-o') + 1] + '.ncu-rep', 'w').write('report')\n";
  }
  fs::permissions(dir / "bin" / "ncu", fs::perms::owner_all);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", ((dir / "bin").string() + ":" + old_path).c_str(), 1);
  Bridge bridge(config);
  auto profile = profile_kernel(bridge, std::string(TRITONDX_SOURCE_DIR) + "/examples/softmax.py", "softmax_kernel",
                                (dir / "out").string(), 120);
  setenv("PATH", old_path.c_str(), 1);
  ASSERT_TRUE(profile.has_value()) << profile.error().kind << ": " << profile.error().diagnostic.to_string();
  EXPECT_EQ(profile->kernel, "softmax_kernel");
  EXPECT_NEAR(*profile->value("GPU Speed Of Light Throughput", "Duration"), 175.84, 1e-9);
  EXPECT_EQ(profile->source.size(), 192u);
  EXPECT_FALSE(profile->raw.empty());
  EXPECT_TRUE(fs::exists(dir / "out" / "softmax_kernel.source.csv"));
  fs::remove_all(dir);
}

TEST(ProfileKernel, UnreadableExportIsADiagnostic) {
  auto p = load_ncu_exports({{"details", "/nonexistent/x.details.csv"}});
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().stage, Stage::Profile);
  auto none = load_ncu_exports({});
  ASSERT_FALSE(none.has_value());
}

}  // namespace
}  // namespace tdx
