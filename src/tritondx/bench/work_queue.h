// The shared queue of a multi-GPU bench run: one SQLite file that every worker claims entries
// from, each claim atomic (BEGIN IMMEDIATE), so that no entry runs twice and a worker that
// finishes early takes the next entry instead of idling.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tritondx/core/diagnostic.h"

namespace SQLite {
class Database;
}

namespace tdx {

struct QueueItem {
  std::string entry;
  std::string status;  // "pending" | "running" | "done" | "failed"
  std::string worker;
};

class WorkQueue {
 public:
  static Expected<WorkQueue> open(const std::string& path);
  WorkQueue(WorkQueue&&) noexcept;
  WorkQueue& operator=(WorkQueue&&) noexcept;
  ~WorkQueue();

  // Replaces the queue's contents with `entries`, all pending, in this order.
  Expected<void> fill(const std::vector<std::string>& entries);
  // The next pending entry, now marked running for `worker`; none when the queue is drained.
  Expected<std::optional<std::string>> claim(const std::string& worker);
  Expected<void> finish(const std::string& entry, const std::string& status);
  Expected<std::vector<QueueItem>> items();

 private:
  explicit WorkQueue(std::unique_ptr<SQLite::Database> db);
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace tdx
