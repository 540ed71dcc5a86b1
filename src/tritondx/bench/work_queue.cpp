#include "tritondx/bench/work_queue.h"

#include <fmt/format.h>

#include <SQLiteCpp/SQLiteCpp.h>

namespace tdx {

namespace {

constexpr int kBusyTimeoutMs = 60000;

template <class F>
auto guarded(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return fail(Stage::Store, fmt::format("bench queue: {}: {}", what, e.what()));
  }
}

}  // namespace

WorkQueue::WorkQueue(std::unique_ptr<SQLite::Database> db) : db_(std::move(db)) {}
WorkQueue::WorkQueue(WorkQueue&&) noexcept = default;
WorkQueue& WorkQueue::operator=(WorkQueue&&) noexcept = default;
WorkQueue::~WorkQueue() = default;

Expected<WorkQueue> WorkQueue::open(const std::string& path) {
  return guarded("open", [&]() -> Expected<WorkQueue> {
    auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs);
    db->exec("PRAGMA journal_mode = WAL");
    db->exec(
        "CREATE TABLE IF NOT EXISTS queue (position INTEGER PRIMARY KEY, entry TEXT NOT NULL UNIQUE, "
        "status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')), worker TEXT, "
        "claimed_at TEXT, finished_at TEXT)");
    return WorkQueue(std::move(db));
  });
}

Expected<void> WorkQueue::fill(const std::vector<std::string>& entries) {
  return guarded("fill", [&]() -> Expected<void> {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    db_->exec("DELETE FROM queue");
    SQLite::Statement insert(*db_, "INSERT INTO queue (entry, status) VALUES (?, 'pending')");
    for (const auto& e : entries) {
      insert.bind(1, e);
      insert.exec();
      insert.reset();
    }
    t.commit();
    return {};
  });
}

Expected<std::optional<std::string>> WorkQueue::claim(const std::string& worker) {
  return guarded("claim", [&]() -> Expected<std::optional<std::string>> {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement next(*db_, "SELECT entry FROM queue WHERE status = 'pending' ORDER BY position LIMIT 1");
    if (!next.executeStep()) return std::nullopt;
    std::string entry = next.getColumn(0).getString();
    SQLite::Statement take(*db_,
                           "UPDATE queue SET status = 'running', worker = ?, claimed_at = datetime('now') WHERE entry = ?");
    take.bind(1, worker);
    take.bind(2, entry);
    take.exec();
    t.commit();
    return entry;
  });
}

Expected<void> WorkQueue::finish(const std::string& entry, const std::string& status) {
  return guarded("finish", [&]() -> Expected<void> {
    SQLite::Statement done(*db_, "UPDATE queue SET status = ?, finished_at = datetime('now') WHERE entry = ?");
    done.bind(1, status);
    done.bind(2, entry);
    done.exec();
    return {};
  });
}

Expected<std::vector<QueueItem>> WorkQueue::items() {
  return guarded("read", [&]() -> Expected<std::vector<QueueItem>> {
    std::vector<QueueItem> out;
    SQLite::Statement q(*db_, "SELECT entry, status, coalesce(worker, '') FROM queue ORDER BY position");
    while (q.executeStep())
      out.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString()});
    return out;
  });
}

}  // namespace tdx
