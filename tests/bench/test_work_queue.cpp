// The workers' shared queue: each entry is claimed once, in order, across connections.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tritondx/bench/work_queue.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

std::string fresh_queue(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "tritondx-queue-tests";
  fs::create_directories(dir);
  fs::path p = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p.string();
}

TEST(WorkQueue, EveryEntryIsClaimedOnceAcrossWorkers) {
  std::string path = fresh_queue("claims.sqlite");
  auto a = WorkQueue::open(path);
  auto b = WorkQueue::open(path);  // a second worker's connection
  ASSERT_TRUE(a.has_value() && b.has_value());
  ASSERT_TRUE(a->fill({"x/one", "x/two", "x/three"}).has_value());
  std::vector<std::string> claimed;
  for (int i = 0; i < 4; ++i) {
    auto& q = i % 2 ? *b : *a;
    auto next = q.claim(i % 2 ? "b" : "a");
    ASSERT_TRUE(next.has_value()) << next.error().to_string();
    if (*next) claimed.push_back(**next);
  }
  EXPECT_EQ(claimed, (std::vector<std::string>{"x/one", "x/two", "x/three"}));
  ASSERT_TRUE(a->finish("x/two", "failed").has_value());
  auto items = b->items();
  ASSERT_TRUE(items.has_value());
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[0].worker, "a");
  EXPECT_EQ((*items)[1].worker, "b");
  EXPECT_EQ((*items)[1].status, "failed");
  EXPECT_EQ((*items)[2].status, "running");
}

TEST(WorkQueue, FillStartsOver) {
  std::string path = fresh_queue("refill.sqlite");
  auto q = WorkQueue::open(path);
  ASSERT_TRUE(q.has_value());
  ASSERT_TRUE(q->fill({"x/one"}).has_value());
  ASSERT_TRUE(q->claim("a").has_value());
  ASSERT_TRUE(q->fill({"x/two"}).has_value());
  auto next = q->claim("a");
  ASSERT_TRUE(next.has_value() && *next);
  EXPECT_EQ(**next, "x/two");
  auto none = q->claim("a");
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(*none);
}

}  // namespace
}  // namespace tdx
