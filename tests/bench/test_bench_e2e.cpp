// `tritondx bench` and the autotune-only grid on this machine (no GPU): results are written per
// entry and kept across runs; the grid's variants are real rewrites of the initial source.
#include <map>
#include <set>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include "tritondx/optimize/launch_grid.h"
#include "../cli_test_util.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

using cli_test::read;
using cli_test::run;
using cli_test::stand_in_gpu;
fs::path fresh_dir(const std::string& name) { return cli_test::fresh_dir("tritondx-bench-tests", name); }

TEST(BenchE2E, WritesAnEntryResultAndKeepsItOnTheNextRun) {
  fs::path out = fresh_dir("cpu-run");
  std::vector<std::string> args{TRITONDX_BINARY, "bench",         "gelu_tanh", "--gpu",         "off",
                                "--max-candidates", "1", "--no-autotune", "--out", out.string()};
  auto r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto entry = nlohmann::json::parse(read(out / "entries" / "elementwise__gelu_tanh" / "entry.json"));
  EXPECT_EQ(entry["entry"], "elementwise/gelu_tanh");
  EXPECT_EQ(entry["status"], "unmeasured");
  EXPECT_EQ(entry["task"], "bench/suite/elementwise/gelu_tanh.py");
  EXPECT_EQ(entry["task_sha256"].get<std::string>().size(), 64u);
  EXPECT_LE(entry["tritondx"]["candidates"].get<int>(), 1);
  EXPECT_FALSE(entry.contains("autotune_only"));
  auto summary = nlohmann::json::parse(read(out / "summary.json"));
  EXPECT_EQ(summary["results"], 1u);
  EXPECT_EQ(summary["unmeasured"][0], "elementwise/gelu_tanh");
  EXPECT_TRUE(fs::exists(out / "summary.md"));
  EXPECT_TRUE(fs::exists(out / "speedups.svg"));

  auto again = run(args);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("kept from an earlier run"), std::string::npos) << again.out;

  // An entry cut after its search (during a baseline) left entry.partial.json: the next run
  // keeps the search's part and does not search again.
  fs::path dir = out / "entries" / "elementwise__gelu_tanh";
  fs::rename(dir / "entry.json", dir / "entry.partial.json");
  auto resumed = run(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  auto kept = nlohmann::json::parse(read(dir / "entry.json"));
  EXPECT_TRUE(kept["tritondx"].value("kept_from_a_cut_run", false)) << kept.dump(2);
  EXPECT_EQ(kept["tritondx"]["candidates"], entry["tritondx"]["candidates"]);
  EXPECT_FALSE(fs::exists(dir / "entry.partial.json"));
}

TEST(BenchE2E, ABadShardIsRefusedWithItsReason) {
  auto r = run({TRITONDX_BINARY, "bench", "--shard", "5/4", "--list"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shard 5/4"), std::string::npos) << r.err;
}

// `--gpus 0,0` takes one comma list: the entry names after it still select entries.
TEST(BenchE2E, GpusTakesOneListAndLeavesTheEntriesAfterIt) {
  auto r = run({TRITONDX_BINARY, "bench", "--list", "--gpus", "0,0", "gelu_tanh", "silu_mul"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("attention/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("elementwise/gelu_tanh"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("elementwise/silu_mul"), std::string::npos) << r.out;
  // An item CUDA_VISIBLE_DEVICES would not take is refused before any worker starts.
  fs::path out = fresh_dir("bad_gpus");
  auto bad = run({TRITONDX_BINARY, "bench", "gelu_tanh", "--gpu", "off", "--gpus", "0,1x", "--out", out.string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--gpus 1x: not a GPU index"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out / "entries")) << bad.out;
  auto uuids = run({TRITONDX_BINARY, "bench", "--list", "--gpus", "GPU-8f2a,MIG-1c3d", "gelu_tanh"});
  EXPECT_EQ(uuids.exit_code, 0) << uuids.out << uuids.err;
}

// Two workers on one GPU (here: none) share the queue and one store; every entry runs once.
TEST(BenchE2E, TwoWorkersShareOneQueueAndOneStore) {
  fs::path out = fresh_dir("workers");
  auto r = run({TRITONDX_BINARY, "bench", "gelu_tanh", "silu_mul", "--gpu", "off", "--max-candidates", "1",
                "--no-autotune", "--gpus", "0,0", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 workers (GPUs 0, 0)"), std::string::npos) << r.out;
  for (const char* e : {"elementwise__gelu_tanh", "elementwise__silu_mul"})
    EXPECT_TRUE(fs::exists(out / "entries" / e / "entry.json")) << e;
  // Both workers time their GPU under one lock (python/tritondx_bridge/gpu_lock.py).
  for (const char* log : {"worker0.log", "worker1.log"})
    EXPECT_NE(read(out / log).find("the GPU lock " + fs::absolute(out / "gpu0.lock").string()), std::string::npos)
        << log << ": " << read(out / log);
  auto summary = nlohmann::json::parse(read(out / "summary.json"));
  EXPECT_EQ(summary["results"], 2u);
  SQLite::Database store((out / "store.sqlite").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(store.execAndGet("SELECT count(*) FROM runs").getInt(), 2);
  SQLite::Database queue((out / "queue.sqlite").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(queue.execAndGet("SELECT count(*) FROM queue WHERE status = 'done'").getInt(), 2);
}

// Shards run elsewhere (other hosts) are merged: their entries and their stores.
TEST(BenchE2E, MergeCombinesShardsResultsAndStores) {
  fs::path a = fresh_dir("shard-a"), b = fresh_dir("shard-b"), merged = fresh_dir("merged");
  for (auto [dir, entry] : {std::pair{a, "gelu_tanh"}, {b, "silu_mul"}}) {
    auto r = run({TRITONDX_BINARY, "bench", entry, "--gpu", "off", "--max-candidates", "1", "--no-autotune", "--out",
                  dir.string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  auto m = run({TRITONDX_BINARY, "bench", "--merge", a.string(), b.string(), "--out", merged.string()});
  ASSERT_EQ(m.exit_code, 0) << m.out << m.err;
  EXPECT_NE(m.out.find("2 entry results copied"), std::string::npos) << m.out;
  auto summary = nlohmann::json::parse(read(merged / "summary.json"));
  EXPECT_EQ(summary["results"], 2u);
  SQLite::Database store((merged / "store.sqlite").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(store.execAndGet("SELECT count(*) FROM runs").getInt(), 2);
  EXPECT_EQ(store.execAndGet("SELECT count(*) FROM candidates c JOIN runs r ON c.run_id = r.id").getInt(),
            store.execAndGet("SELECT count(*) FROM candidates").getInt());
}

// Results measured on another GPU are refused by --merge unless --allow-mixed-cards: the summary
// would mix cards. Two CPU runs stand for two cards, their results named as the device names them.
TEST(BenchE2E, MergeRefusesResultsOfAnotherCardUnlessAllowed) {
  fs::path h200 = fresh_dir("card-h200"), h100 = fresh_dir("card-h100"), merged = fresh_dir("merged-cards");
  for (auto [dir, entry, card] : {std::tuple{h200, "gelu_tanh", "NVIDIA H200"},
                                  {h100, "silu_mul", "NVIDIA H100 80GB HBM3"}}) {
    auto r = run({TRITONDX_BINARY, "bench", entry, "--gpu", "off", "--max-candidates", "0", "--no-autotune", "--out",
                  dir.string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const auto& e : fs::directory_iterator(dir / "entries")) {
      auto j = nlohmann::json::parse(read(e.path() / "entry.json"));
      j["card"] = card;
      std::ofstream(e.path() / "entry.json") << j.dump(2);
    }
  }
  auto first = run({TRITONDX_BINARY, "bench", "--merge", h200.string(), "--out", merged.string()});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto refused = run({TRITONDX_BINARY, "bench", "--merge", h100.string(), "--out", merged.string()});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("refused elementwise/silu_mul: measured on NVIDIA H100 80GB HBM3"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(merged / "entries" / "elementwise__silu_mul"));
  EXPECT_TRUE(fs::exists(merged / "entries" / "elementwise__gelu_tanh" / "entry.json"));
  auto allowed = run({TRITONDX_BINARY, "bench", "--merge", h100.string(), "--allow-mixed-cards", "--out", merged.string()});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_TRUE(fs::exists(merged / "entries" / "elementwise__silu_mul" / "entry.json"));
  auto taken = nlohmann::json::parse(read(merged / "entries" / "elementwise__silu_mul" / "entry.json"));
  EXPECT_EQ(taken["card"], "NVIDIA H100 80GB HBM3");
}

TEST(AutotuneGrid, BuildsBlockAndLaunchVariantsOfTheInitialSource) {
  fs::path work = fresh_dir("grid-vector-add");
  Bridge bridge(BridgeConfig::from_environment());
  std::string task = std::string(TRITONDX_SOURCE_DIR) + "/examples/vector_add.py";
  auto a = launch_grid(bridge, task, work.string(), 0, false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  EXPECT_FALSE(a->measured);
  EXPECT_EQ(a->gpu_evaluations, 0);
  int blocks = 0, launch = 0;
  std::string original = read(task);
  for (const auto& v : a->variants) {
    std::string text = read(v.path);
    EXPECT_NE(text, original) << v.description;
    (v.stage == "blocks" ? blocks : launch)++;
  }
  EXPECT_GE(blocks, 2);  // BLOCK_SIZE halved, doubled, quadrupled (as far as the launch allows)
  EXPECT_EQ(launch, 8);  // num_warps {2,4,8} x num_stages {2,3,4}, minus the initial pair
  bool has_warps8_stages4 = false;
  for (const auto& v : a->variants)
    if (v.description == "num_warps 8, num_stages 4") {
      has_warps8_stages4 = true;
      std::string text = read(v.path);
      EXPECT_NE(text.find("num_warps=8"), std::string::npos) << text;
      EXPECT_NE(text.find("num_stages=4"), std::string::npos) << text;
    }
  EXPECT_TRUE(has_warps8_stages4);
}

// A whole 8192-wide row per program and no tl.dot: the grid also tries 16 warps, once, at the
// launch's num_stages; the matmul's 64x64 tile (as many elements, but an MMA) does not get them.
TEST(AutotuneGrid, TriesSixteenWarpsOnAWideRowWithoutDot) {
  Bridge bridge(BridgeConfig::from_environment());
  fs::path work = fresh_dir("grid-rms-norm");
  auto a = launch_grid(bridge, std::string(TRITONDX_SOURCE_DIR) + "/bench/suite/norm/rms_norm_fwd.py", work.string(),
                       0, false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  std::vector<std::string> sixteen;
  for (const auto& v : a->variants)
    if (v.description.find("num_warps 16") != std::string::npos) {
      sixteen.push_back(v.description);
      EXPECT_NE(read(v.path).find("num_warps=16"), std::string::npos) << read(v.path);
    }
  EXPECT_EQ(sixteen, std::vector<std::string>{"num_warps 16, num_stages 3"});

  fs::path mm = fresh_dir("grid-matmul-warps");
  auto b = launch_grid(bridge, std::string(TRITONDX_SOURCE_DIR) + "/examples/matmul.py", mm.string(), 0, false);
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  for (const auto& v : b->variants) EXPECT_EQ(v.description.find("num_warps 16"), std::string::npos) << v.description;
}

// Liger's group norm reduces a 65536-element block per program at 4 warps: the grid also tries
// the block at a quarter and an eighth of its size, and no num_warps that leaves a thread more
// than 256 of its elements (2 and 4 warps: 1024 and 512).
TEST(AutotuneGrid, ShrinksAWideBlockAndSkipsTheWarpsItWouldSpillAt) {
  Bridge bridge(BridgeConfig::from_environment());
  fs::path work = fresh_dir("grid-group-norm");
  auto a = launch_grid(bridge, std::string(TRITONDX_SOURCE_DIR) + "/bench/corpus/liger/group_norm_fwd.py",
                       work.string(), 0, false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  std::set<std::string> descriptions;
  for (const auto& v : a->variants) descriptions.insert(v.description);
  std::string refused;
  for (const auto& r : a->refused) refused += r + "\n";
  for (const char* block : {"BLOCK_SIZE 65536 -> 32768", "BLOCK_SIZE 65536 -> 16384", "BLOCK_SIZE 65536 -> 8192"})
    EXPECT_TRUE(descriptions.count(block)) << block << "\nrefused:\n" << refused;
  for (const auto& v : a->variants)
    if (v.description == "BLOCK_SIZE 65536 -> 16384")
      EXPECT_NE(read(v.path).find("min(16384, "), std::string::npos) << read(v.path);
  for (const auto& d : descriptions) {
    EXPECT_EQ(d.find("num_warps 2,"), std::string::npos) << d;
    EXPECT_EQ(d.find("num_warps 4,"), std::string::npos) << d;
  }
  EXPECT_TRUE(descriptions.count("num_warps 8, num_stages 2")) << refused;
  EXPECT_TRUE(descriptions.count("num_warps 16, num_stages 3")) << refused;
  EXPECT_NE(refused.find("num_warps 2: a thread would hold 1024 elements of the 65536-element tile"), std::string::npos) << refused;
}

// A 1024-wide row reduced per program (top-k's max/argmax rounds) and no tl.dot: the grid also
// tries 1 warp, once, at the launch's num_stages; vector_add's 1024-element block, which reduces
// nothing, does not get it.
TEST(AutotuneGrid, TriesOneWarpOnANarrowReduction) {
  Bridge bridge(BridgeConfig::from_environment());
  fs::path work = fresh_dir("grid-topk");
  auto a = launch_grid(bridge, std::string(TRITONDX_SOURCE_DIR) + "/bench/suite/select/topk_rows_k8.py", work.string(),
                       0, false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  std::vector<std::string> one;
  for (const auto& v : a->variants)
    if (v.description.find("num_warps 1,") != std::string::npos) {
      one.push_back(v.description);
      EXPECT_NE(read(v.path).find("num_warps=1"), std::string::npos) << read(v.path);
    }
  EXPECT_EQ(one, std::vector<std::string>{"num_warps 1, num_stages 3"});

  fs::path add = fresh_dir("grid-vector-add-warps");
  auto b = launch_grid(bridge, std::string(TRITONDX_SOURCE_DIR) + "/examples/vector_add.py", add.string(), 0, false);
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  for (const auto& v : b->variants) EXPECT_EQ(v.description.find("num_warps 1,"), std::string::npos) << v.description;
}

// reorder-tile's [TILE_ROWS, BLOCK] = 8 x 1024 transpose tile is also reshaped, taller at the same
// or a smaller area, with the 2-D grid and the even-shape flag's divisors following.
TEST(AutotuneGrid, ReshapesTheTileOfAReorderedTranspose) {
  Bridge bridge(BridgeConfig::from_environment());
  fs::path work = fresh_dir("grid-transpose");
  auto a = launch_grid(bridge, std::string(TRITONDX_FIXTURES_DIR) + "/tasks/transpose_tiled.py", work.string(), 0,
                       false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  std::map<std::string, std::string> tiles;
  for (const auto& v : a->variants)
    if (v.description.find(" tile (TILE_ROWS") != std::string::npos)
      tiles[v.description.substr(0, v.description.find(' '))] = read(v.path);
  std::string refused;
  for (const auto& r : a->refused) refused += r + "\n";
  for (const char* shape : {"16x512", "32x256", "64x128", "32x128", "32x32", "64x64"})
    EXPECT_TRUE(tiles.count(shape)) << shape << " missing; refused:\n" << refused;
  ASSERT_TRUE(tiles.count("32x32")) << refused;
  const std::string& text = tiles["32x32"];
  EXPECT_NE(text.find("BLOCK=32, TILE_ROWS=32"), std::string::npos) << text;
  EXPECT_NE(text.find("triton.cdiv(rows, 32), triton.cdiv(cols, 32)"), std::string::npos) << text;
  EXPECT_NE(text.find("EVEN_N_COLS_N_ROWS=cols % 32 == 0 and rows % 32 == 0"), std::string::npos) << text;
}

// On the H200, conv1x1_as_gemm's search kept even-shape-heuristic and group-program-order, and
// the launch grid then refused every tile: the unmasked loads under `if EVEN_K_M_N:` and the
// flag computed in a launch variable were not seen to follow the block.
TEST(AutotuneGrid, GrowsTheTileOfAnEvenShapedGroupedMatmul) {
  fs::path work = fresh_dir("grid-even-grouped");
  Bridge bridge(BridgeConfig::from_environment());
  auto a = launch_grid(bridge, std::string(TRITONDX_FIXTURES_DIR) + "/tasks/conv1x1_even_grouped.py", work.string(), 0,
                       false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  std::map<std::string, std::string> by_description;
  for (const auto& v : a->variants) by_description[v.description] = read(v.path);
  std::string refused;
  for (const auto& r : a->refused) refused += r + "\n";
  const std::string tile = "128x128 tile (BLOCK_M 64 -> 128, BLOCK_N 64 -> 128)";
  ASSERT_TRUE(by_description.count(tile)) << refused;
  EXPECT_NE(by_description[tile].find("grid = (triton.cdiv(M, 128) * triton.cdiv(K_out, 128),)"), std::string::npos)
      << by_description[tile];
  // The launch's line (the fixture's docstring quotes the line as given).
  EXPECT_NE(by_description[tile].find("\n    even_k_m_n = C % 32 == 0 and M % 128 == 0 and K_out % 128 == 0\n"),
            std::string::npos)
      << by_description[tile];
  ASSERT_TRUE(by_description.count("BLOCK_K 32 -> 64")) << refused;
  EXPECT_NE(by_description["BLOCK_K 32 -> 64"].find("\n    even_k_m_n = C % 64 == 0 and M % 64 == 0"),
            std::string::npos);
  // A smaller tile keeps the flag's divisors: BLOCK_M's 64 could be BLOCK_N's, and divisible by
  // 64 is divisible by 32.
  const std::string small = "32x32 tile (BLOCK_M 64 -> 32, BLOCK_N 64 -> 32)";
  ASSERT_TRUE(by_description.count(small)) << refused;
  EXPECT_NE(by_description[small].find("\n    even_k_m_n = C % 32 == 0 and M % 64 == 0 and K_out % 64 == 0\n"),
            std::string::npos)
      << by_description[small];
  EXPECT_NE(by_description[small].find("grid = (triton.cdiv(M, 32) * triton.cdiv(K_out, 32),)"), std::string::npos);
  // A smaller BLOCK_K: its divisor follows, no other constexpr being 32.
  ASSERT_TRUE(by_description.count("BLOCK_K 32 -> 16")) << refused;
  EXPECT_NE(by_description["BLOCK_K 32 -> 16"].find("\n    even_k_m_n = C % 16 == 0 and M % 64 == 0"),
            std::string::npos);
}

// On the H200, cumsum_1d_blocked's search kept unmasked-full-blocks, and the launch grid then
// refused BLOCK 2048 and 4096 for the unmasked accesses the full-block guard protects.
TEST(AutotuneGrid, GrowsTheBlockOfAGuardedScan) {
  fs::path work = fresh_dir("grid-guarded-scan");
  Bridge bridge(BridgeConfig::from_environment());
  auto a = launch_grid(bridge, std::string(TRITONDX_FIXTURES_DIR) + "/tasks/cumsum_guarded_blocks.py", work.string(), 0,
                       false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  std::string refused;
  for (const auto& r : a->refused) refused += r + "\n";
  bool grown = false;
  for (const auto& v : a->variants)
    if (v.description == "BLOCK 1024 -> 4096") {
      grown = true;
      EXPECT_NE(read(v.path).find("\nBLOCK = 4096\n"), std::string::npos) << read(v.path);
    }
  EXPECT_TRUE(grown) << refused;
}

TEST(AutotuneGrid, GrowsTheOutputTileOfAMatmul) {
  fs::path work = fresh_dir("grid-matmul");
  Bridge bridge(BridgeConfig::from_environment());
  auto a = launch_grid(bridge, std::string(TRITONDX_SOURCE_DIR) + "/examples/matmul.py", work.string(), 0, false);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  bool tile = false;
  for (const auto& v : a->variants)
    if (v.description.starts_with("128x128 tile")) {
      tile = true;
      std::string text = read(v.path);
      EXPECT_NE(text.find("BLOCK_M=128, BLOCK_N=128"), std::string::npos) << text;
      EXPECT_NE(text.find("triton.cdiv(M, 128) * triton.cdiv(N, 128)"), std::string::npos) << text;
    }
  // One side of the tile alone: the other factor of the product grid keeps its 64.
  bool rows_only = false;
  for (const auto& v : a->variants)
    if (v.description.starts_with("128x64 tile")) {
      rows_only = true;
      EXPECT_NE(read(v.path).find("triton.cdiv(M, 128) * triton.cdiv(N, 64)"), std::string::npos) << read(v.path);
    }
  // A grown tile also runs with the warps scaled by its area (4 -> 8 at most): 128x128 at 8.
  bool scaled = false;
  for (const auto& v : a->variants)
    if (v.description == "128x128 tile (BLOCK_M 64 -> 128, BLOCK_N 64 -> 128), num_warps 8") {
      scaled = true;
      std::string text = read(v.path);
      EXPECT_NE(text.find("BLOCK_M=128, BLOCK_N=128"), std::string::npos) << text;
      EXPECT_NE(text.find("num_warps=8"), std::string::npos) << text;
    }
  std::string refused;
  for (const auto& r : a->refused) refused += r + "\n";
  EXPECT_TRUE(tile) << refused;
  EXPECT_TRUE(rows_only) << refused;
  EXPECT_TRUE(scaled) << refused;
}


// What an entry cut short left behind (an unfinished run in the store, the optimizer's part in
// entry.partial.json) is kept only when it was measured on the card the bench now sees, and so
// is a finished result.
TEST(BenchE2E, WhatWasMeasuredOnAnotherCardIsMeasuredAgain) {
  fs::path out = fresh_dir("other_card");
  std::vector<std::string> args{TRITONDX_BINARY, "bench",        "silu_mul",   "--gpu", "on",        "--max-candidates",
                                "0",             "--no-autotune", "--no-torch", "--out", out.string()};
  auto env = stand_in_gpu();
  auto first = run(args, env);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  fs::path dir = out / "entries" / "elementwise__silu_mul";
  auto entry = nlohmann::json::parse(read(dir / "entry.json"));
  ASSERT_EQ(entry["card"], "stand-in GPU (tests/optimize/gpu_stand_in.py)");
  // As if the entry had been cut on an H100: its run unfinished, its optimizer part kept aside.
  entry["card"] = "NVIDIA H100 80GB HBM3";
  std::ofstream(dir / "entry.partial.json") << entry.dump(2);
  fs::remove(dir / "entry.json");
  {
    SQLite::Database db((out / "store.sqlite").string(), SQLite::OPEN_READWRITE);
    ASSERT_EQ(db.exec("UPDATE runs SET status = 'interrupted', device = 'NVIDIA H100 80GB HBM3'"), 1);
  }

  auto again = run(args, env);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto redone = nlohmann::json::parse(read(dir / "entry.json"));
  std::string notes = redone["notes"].dump();
  EXPECT_NE(notes.find("run 1 of this entry in the store was not resumed: it was measured on NVIDIA H100 80GB HBM3, "
                       "and the GPU here is stand-in GPU"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("(entry.partial.json) were not kept: it was measured on NVIDIA H100 80GB HBM3"),
            std::string::npos)
      << notes;
  EXPECT_EQ(redone["card"], "stand-in GPU (tests/optimize/gpu_stand_in.py)");
  EXPECT_FALSE(redone["tritondx"]["resumed"].get<bool>());
  EXPECT_FALSE(redone["tritondx"].contains("kept_from_a_cut_run"));
  SQLite::Database db((out / "store.sqlite").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT status FROM runs WHERE id = 1").getString(), "interrupted");
  EXPECT_EQ(db.execAndGet("SELECT status FROM runs WHERE id = 2").getString(), "finished");

  env["STAND_IN_DEVICE"] = "NVIDIA H200";
  auto on_h200 = run(args, env);
  ASSERT_EQ(on_h200.exit_code, 0) << on_h200.out << on_h200.err;
  EXPECT_NE(on_h200.out.find("measured on stand-in GPU (tests/optimize/gpu_stand_in.py) are measured again on "
                             "NVIDIA H200"),
            std::string::npos)
      << on_h200.out;
  EXPECT_EQ(on_h200.out.find("kept from an earlier run"), std::string::npos) << on_h200.out;
  EXPECT_EQ(nlohmann::json::parse(read(dir / "entry.json"))["card"], "NVIDIA H200");
}

// The search's launch tuning ran the grid on the task as given (no rewrite beat it): that grid
// is the autotune-only peer, not run a second time; a grid tuned on a rewrite is not.
TEST(BenchE2E, AGridTheSearchRanOnTheInitialKernelIsTheAutotuneOnlyPeer) {
  for (bool rewrite_wins : {false, true}) {
    fs::path out = fresh_dir(rewrite_wins ? "grid_on_a_rewrite" : "grid_reused");
    fs::path log = out / "requests.jsonl";
    fs::create_directories(out);
    auto env = stand_in_gpu({{"STAND_IN_REQUEST_LOG", log.string()}});
    // even-shape-heuristic's candidate (an EVEN_* heuristic) is made the faster kernel.
    if (rewrite_wins) env["STAND_IN_FACTORS"] = R"([["EVEN", 0.5]])";
    auto r = run({TRITONDX_BINARY, "bench", "silu_mul", "--gpu", "on", "--max-candidates", rewrite_wins ? "2" : "0",
                  "--no-torch", "--rounds", "0", "--out", out.string()},
                 env);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    fs::path dir = out / "entries" / "elementwise__silu_mul";
    auto entry = nlohmann::json::parse(read(dir / "entry.json"));
    int autotune_sweeps = 0;  // the bench's own grid writes its variants under autotune/
    std::istringstream lines(read(log));
    for (std::string line; std::getline(lines, line);)
      if (auto j = nlohmann::json::parse(line); j["verb"] == "sweep")
        autotune_sweeps += j["request"]["tasks"][0].get<std::string>().find("/autotune/") != std::string::npos;
    const auto& peer = entry["autotune_only"];
    ASSERT_TRUE(peer.is_object()) << entry.dump(2);
    if (!rewrite_wins) {
      EXPECT_EQ(autotune_sweeps, 0) << read(log);
      EXPECT_TRUE(peer.value("from_search", false)) << peer.dump(2);
      EXPECT_NEAR(peer["speedup"].get<double>(), 1 / 0.54, 0.01) << peer.dump(2);
      EXPECT_NE(read(dir / "autotune_best.py").find("num_warps=8"), std::string::npos);
    } else {
      ASSERT_NE(entry["tritondx"].value("best_path", nlohmann::json::array()).size(), 0u) << entry.dump(2);
      EXPECT_GT(autotune_sweeps, 0) << read(log);
      EXPECT_FALSE(peer.value("from_search", false)) << peer.dump(2);
    }
  }
}

// After the search and the grid, the initial kernel, tritondx's and autotune-only's winner are
// timed again in interleaved rounds (the stand-in's compare verb: each round 2% slower than the
// one before, the launch-tuned kernels 1/0.54 faster).
TEST(BenchE2E, TheChosenKernelsAreTimedAgainInInterleavedRounds) {
  fs::path out = fresh_dir("interleaved");
  auto env = stand_in_gpu();
  auto r = run({TRITONDX_BINARY, "bench", "silu_mul", "--gpu", "on", "--max-candidates", "0", "--no-torch", "--rounds",
                "5", "--out", out.string()},
               env);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto entry = nlohmann::json::parse(read(out / "entries" / "elementwise__silu_mul" / "entry.json"));
  ASSERT_TRUE(entry.contains("interleaved")) << entry.dump(2);
  const auto& i = entry["interleaved"];
  EXPECT_EQ(i["rounds"], 5);
  EXPECT_EQ(i["initial_round_ms"].size(), 5u);
  EXPECT_NEAR(i["tritondx"]["speedup"].get<double>(), 1 / 0.54, 0.03) << i.dump(2);
  EXPECT_TRUE(i["tritondx"]["confirmed"].get<bool>());
  EXPECT_LE(i["tritondx"]["ci95"][0].get<double>(), i["tritondx"]["speedup"].get<double>());
  EXPECT_NEAR(i["autotune_only"]["speedup"].get<double>(), 1 / 0.54, 0.03) << i.dump(2);
  EXPECT_NEAR(i["tritondx_over_autotune"]["speedup"].get<double>(), 1.0, 0.02);
  EXPECT_FALSE(i["tritondx_over_autotune"]["confirmed"].get<bool>());
  std::string md = read(out / "summary.md");
  EXPECT_NE(md.find("| interleaved rounds: speedup over the initial kernel (geomean, median) |"), std::string::npos) << md;

  // --confirm adds the rounds to a result measured before they existed, on the same card only.
  entry.erase("interleaved");
  std::ofstream(out / "entries" / "elementwise__silu_mul" / "entry.json") << entry.dump(2);
  std::vector<std::string> confirm{TRITONDX_BINARY, "bench", "silu_mul", "--confirm", "--rounds", "3", "--out", out.string()};
  env["STAND_IN_DEVICE"] = "NVIDIA H200";
  auto elsewhere = run(confirm, env);
  EXPECT_EQ(elsewhere.exit_code, 0) << elsewhere.out << elsewhere.err;
  EXPECT_NE(elsewhere.out.find("elementwise/silu_mul: measured on stand-in GPU (tests/optimize/gpu_stand_in.py), and "
                               "the GPU here is NVIDIA H200: not confirmed here"),
            std::string::npos)
      << elsewhere.out;
  env.erase("STAND_IN_DEVICE");
  auto confirmed = run(confirm, env);
  ASSERT_EQ(confirmed.exit_code, 0) << confirmed.out << confirmed.err;
  EXPECT_NE(confirmed.out.find("elementwise/silu_mul: 3 interleaved rounds: tritondx 1.8"), std::string::npos)
      << confirmed.out;
  auto after = nlohmann::json::parse(read(out / "entries" / "elementwise__silu_mul" / "entry.json"));
  EXPECT_EQ(after["interleaved"]["rounds"], 3);
  EXPECT_EQ(after["tritondx"], entry["tritondx"]);  // the search's part is kept as it was
  auto again = run(confirm, env);
  EXPECT_NE(again.out.find("already has its interleaved rounds"), std::string::npos) << again.out;
}

// --stop-after: the entry started before the limit finishes, the next one does not start, and a
// second run resumes with it.
TEST(BenchE2E, StopAfterFinishesTheStartedEntryAndStartsNoOther) {
  fs::path out = fresh_dir("stop_after");
  std::vector<std::string> args{TRITONDX_BINARY, "bench", "gelu_tanh", "silu_mul", "--gpu", "off", "--max-candidates",
                                "1", "--no-autotune", "--no-torch", "--out", out.string(), "--stop-after", "2"};
  auto r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("--stop-after 2 s: 1 started no more; run again to resume from elementwise/silu_mul"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::exists(out / "entries" / "elementwise__gelu_tanh" / "entry.json"));
  EXPECT_FALSE(fs::exists(out / "entries" / "elementwise__silu_mul"));
  r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gelu_tanh: not measured (no GPU); 1 candidates (kept from an earlier run)"), std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::exists(out / "entries" / "elementwise__silu_mul" / "entry.json"));
}

TEST(BenchE2E, StopAfterLeavesUnclaimedEntriesPendingForWorkers) {
  fs::path out = fresh_dir("stop_after_workers");
  auto r = run({TRITONDX_BINARY, "bench", "gelu_tanh", "silu_mul", "add_relu", "--gpu", "off", "--max-candidates", "1",
                "--no-autotune", "--no-torch", "--gpus", "0,0", "--out", out.string(), "--stop-after", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("was not started (--stop-after); run again to resume"), std::string::npos) << r.out;
  SQLite::Database queue((out / "queue.sqlite").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(queue.execAndGet("SELECT count(*) FROM queue WHERE status = 'done'").getInt(), 2);
  EXPECT_EQ(queue.execAndGet("SELECT count(*) FROM queue WHERE status = 'pending'").getInt(), 1);
}

}  // namespace
}  // namespace tdx
