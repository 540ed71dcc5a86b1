// Merging stores (bench shards run on several hosts): runs stay whole, ids are renumbered,
// references follow, and runs the destination already holds are skipped.
#include <gtest/gtest.h>

#include <fstream>

#include "store_test_util.h"
#include "tritondx/store/store_merge.h"

namespace tdx {
namespace {

using store_test::sample_candidate;
using store_test::sample_run;
using store_test::TempDir;

// A store with one run: the original and a child with one finding.
void fill(const std::string& path, const std::string& task_text) {
  auto s = Store::open(path);
  ASSERT_TRUE(s.has_value()) << s.error().to_string();
  auto run = s->begin_run(sample_run(task_text));
  ASSERT_TRUE(run.has_value());
  auto original = s->add_candidate(*run, std::nullopt, 0, sample_candidate(task_text, "original"));
  ASSERT_TRUE(original.has_value());
  auto child = s->add_candidate(*run, *original, 1, sample_candidate(task_text + "# child\n"));
  ASSERT_TRUE(child.has_value());
  Finding f = store_test::sample_finding("l0-exp-not-exp2", 1);
  ASSERT_TRUE(s->add_findings(*child, {f}).has_value());
  ASSERT_TRUE(s->finish_run(*run, RunStatus::Finished).has_value());
}

TEST(StoreMerge, CopiesRunsWithRenumberedIdsAndIntactReferences) {
  TempDir dir;
  std::string a = dir.file("a.sqlite"), b = dir.file("b.sqlite");
  fill(a, "def a(): pass\n");
  fill(b, "def b(): pass\n");
  auto stats = merge_store(a, b);
  ASSERT_TRUE(stats.has_value()) << stats.error().to_string();
  EXPECT_EQ(stats->runs, 1);
  EXPECT_EQ(stats->candidates, 2);
  EXPECT_EQ(stats->findings, 1);

  auto s = Store::open(a);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(*s->check_integrity(), "ok");
  auto merged = s->run(2);
  ASSERT_TRUE(merged.has_value()) << merged.error().to_string();
  EXPECT_EQ(merged->info.task_sha256, sha256_hex("def b(): pass\n"));
  auto candidates = s->candidates(2);
  ASSERT_TRUE(candidates.has_value());
  ASSERT_EQ(candidates->size(), 2u);
  EXPECT_EQ((*candidates)[0].id, 3);
  EXPECT_EQ((*candidates)[1].parent_id, std::optional<long long>(3));
  auto findings = s->findings((*candidates)[1].id);
  ASSERT_TRUE(findings.has_value());
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_EQ((*findings)[0].evidence.size(), 1u);
  // The first store's run is untouched.
  auto first = s->candidates(1);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->size(), 2u);
}

TEST(StoreMerge, SkipsRunsTheDestinationAlreadyHolds) {
  TempDir dir;
  std::string a = dir.file("a.sqlite"), b = dir.file("b.sqlite");
  fill(a, "def a(): pass\n");
  fill(b, "def b(): pass\n");
  ASSERT_TRUE(merge_store(a, b).has_value());
  // Merging again copies nothing.
  auto again = merge_store(a, b);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->runs, 0);
  EXPECT_EQ(again->candidates, 0);
  EXPECT_EQ(again->skipped_runs, 1);
  // A copy of `a` (which now holds both runs) that gained a run of its own: two stores sharing
  // a base, as two bench calls on one checkout make. Only the new run comes across.
  std::string c = dir.file("c.sqlite");
  for (const char* suffix : {"", "-wal"})  // the store keeps recent writes in its WAL file
    if (std::filesystem::exists(a + suffix)) std::filesystem::copy_file(a + suffix, c + suffix);
  fill(c, "def c(): pass\n");
  auto shared = merge_store(a, c);
  ASSERT_TRUE(shared.has_value()) << shared.error().to_string();
  EXPECT_EQ(shared->runs, 1);
  EXPECT_EQ(shared->skipped_runs, 2);
  // Ids shift by the destination's largest: c's new run 3 becomes run 5 with its two
  // candidates, and the skipped runs left no candidates behind under runs 3 and 4.
  auto s = Store::open(a);
  ASSERT_TRUE(s.has_value());
  for (long long run : {3LL, 4LL, 5LL}) {
    auto candidates = s->candidates(run);
    ASSERT_TRUE(candidates.has_value());
    EXPECT_EQ(candidates->size(), run == 5 ? 2u : 0u) << "run " << run;
  }
}

TEST(StoreMerge, CreatesTheDestinationAndRefusesANonStore) {
  TempDir dir;
  std::string b = dir.file("b.sqlite");
  fill(b, "def b(): pass\n");
  auto into_new = merge_store(dir.file("new.sqlite"), b);
  ASSERT_TRUE(into_new.has_value()) << into_new.error().to_string();
  EXPECT_EQ(into_new->runs, 1);
  std::string junk = dir.file("junk.sqlite");
  { std::ofstream(junk) << "not a database"; }
  EXPECT_FALSE(merge_store(dir.file("new.sqlite"), junk).has_value());
}

}  // namespace
}  // namespace tdx
