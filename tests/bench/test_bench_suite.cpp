// The suite on disk and its shards.
#include <gtest/gtest.h>

#include <set>

#include "tritondx/bench/bench_suite.h"

namespace tdx {
namespace {

const std::string kSuite = std::string(TRITONDX_SOURCE_DIR) + "/bench/suite";

TEST(BenchSuite, DiscoversEveryEntrySortedWithItsCategory) {
  auto all = discover_entries(kSuite);
  ASSERT_TRUE(all.has_value()) << all.error().to_string();
  EXPECT_GE(all->size(), 40u);
  std::set<std::string> categories;
  for (size_t i = 0; i < all->size(); ++i) {
    const auto& e = (*all)[i];
    EXPECT_EQ(e.id, e.category + "/" + e.name);
    EXPECT_TRUE(e.path.ends_with(e.id + ".py")) << e.path;
    if (i) EXPECT_LT((*all)[i - 1].id, e.id);
    categories.insert(e.category);
  }
  EXPECT_GE(categories.size(), 13u);
}

TEST(BenchSuite, AMissingSuiteIsAnError) {
  auto all = discover_entries("/nonexistent/suite");
  ASSERT_FALSE(all.has_value());
  EXPECT_NE(all.error().message.find("does not exist"), std::string::npos);
}

TEST(BenchSuite, ParsesShards) {
  auto s = parse_shard("2/5");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 5);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2"}) EXPECT_FALSE(parse_shard(bad).has_value()) << bad;
}

TEST(BenchSuite, ShardsPartitionTheSuiteAndMixCategories) {
  auto all = discover_entries(kSuite);
  ASSERT_TRUE(all.has_value());
  std::multiset<std::string> seen;
  for (int i = 1; i <= 4; ++i) {
    auto part = select_entries(*all, {}, {i, 4});
    std::set<std::string> categories;
    for (const auto& e : part) {
      seen.insert(e.id);
      categories.insert(e.category);
    }
    EXPECT_GE(categories.size(), 5u) << "shard " << i;
  }
  EXPECT_EQ(seen.size(), all->size());
  for (const auto& e : *all) EXPECT_EQ(seen.count(e.id), 1u) << e.id;
}

TEST(BenchSuite, FiltersMatchSubstringsOfIds) {
  auto all = discover_entries(kSuite);
  ASSERT_TRUE(all.has_value());
  auto matmuls = select_entries(*all, {"matmul/"}, {1, 1});
  ASSERT_FALSE(matmuls.empty());
  for (const auto& e : matmuls) EXPECT_EQ(e.category, "matmul");
  EXPECT_TRUE(select_entries(*all, {"no-such-entry"}, {1, 1}).empty());
}

TEST(BenchSuite, AWholeIdSelectsThatEntryAlone) {
  auto all = discover_entries(kSuite);
  ASSERT_TRUE(all.has_value());
  auto attention = select_entries(*all, {"attention/attention_fwd"}, {1, 1});
  ASSERT_EQ(attention.size(), 1u);  // not attention/attention_fwd_causal too
  EXPECT_EQ(attention[0].id, "attention/attention_fwd");
  EXPECT_EQ(select_entries(*all, {"attention/attention_fwd_"}, {1, 1}).size(), 1u);  // a substring still matches
  EXPECT_EQ(select_entries(*all, {"attention/"}, {1, 1}).size(), 2u);
}

}  // namespace
}  // namespace tdx
