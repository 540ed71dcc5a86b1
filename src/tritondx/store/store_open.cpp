// Store::open(): refuse what is not ours, create a new store, check the schema version.
#include <charconv>

#include <sqlite3.h>

#include "tritondx/store/store.h"
#include "tritondx/store/store_internal.h"
#include "tritondx/store/store_schema.h"

namespace tdx {

using namespace store_detail;

namespace {

constexpr std::string_view kApplication = "tritondx";
constexpr int kBusyTimeoutMs = 30000;  // several bench workers share one store

// Reads meta.schema_version of an existing store and refuses what this build cannot read.
Expected<void> check_version(SQLite::Database& db, const std::string& path) {
  SQLite::Statement st(db, "SELECT key, value FROM meta WHERE key IN ('application', 'schema_version')");
  std::string application, version;
  while (st.executeStep()) {
    if (st.getColumn(0).getString() == "application") application = st.getColumn(1).getString();
    else version = st.getColumn(1).getString();
  }
  if (application != kApplication)
    return fail(Stage::Store,
                fmt::format("not a tritondx store (meta.application is '{}', expected '{}')",
                            application, kApplication),
                0, path);
  int n = 0;
  auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), n);
  if (ec != std::errc() || end != version.data() + version.size() || n < 1)
    return fail(Stage::Store, fmt::format("unknown store schema version '{}'", version), 0, path);
  if (n > kStoreSchemaVersion)
    return fail(Stage::Store,
                fmt::format("store schema version {} is newer than this tritondx reads (up to {}); "
                            "use a newer tritondx or another store file",
                            n, kStoreSchemaVersion),
                0, path);
  // n < kStoreSchemaVersion: migrations go here once there is a version 2.
  return {};
}

// Creates the schema in a new, empty database; refuses a database that holds other tables.
Expected<void> create_or_check(SQLite::Database& db, const std::string& path) {
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  if (db.tableExists("meta")) return check_version(db, path);
  int objects = db.execAndGet(
                      "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
                    .getInt();
  if (objects > 0)
    return fail(Stage::Store,
                "a SQLite database but not a tritondx store (it has tables but no meta table); "
                "refusing to add tables to it",
                0, path);
  db.exec(kSchemaSql);
  SQLite::Statement meta(db, "INSERT INTO meta (key, value) VALUES (?, ?)");
  auto put = [&](std::string_view key, std::string_view value) {
    bind_text(meta, 1, key);
    bind_text(meta, 2, value);
    meta.exec();
    meta.reset();
  };
  put("application", kApplication);
  put("schema_version", std::to_string(kStoreSchemaVersion));
  put("created_at", db.execAndGet("SELECT " TDX_STORE_NOW).getString());
  tx.commit();
  return {};
}

}  // namespace

Store::Store(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Expected<Store> Store::open(const std::string& path) {
  return guard(path, "open", [&]() -> Expected<Store> {
    auto db = std::make_unique<SQLite::Database>(
        path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs);
    db->exec("PRAGMA foreign_keys = ON");
    try {
      TDX_STORE_TRY_VOID(create_or_check(*db, path));
    } catch (const SQLite::Exception& e) {
      // SQLite notices a foreign file at the first read; say what that means here.
      if (e.getErrorCode() == SQLITE_NOTADB)
        return fail(Stage::Store,
                    "not a SQLite database (SQLite: file is not a database); refusing to use it "
                    "as a tritondx store",
                    0, path);
      throw;
    }
    // WAL: readers (a report, `tritondx optimize --status`) never block the writer, and a
    // commit is one append to the log. FULL: the log is synced at every commit, so a
    // committed candidate also survives a power loss, not only a killed process; the loop
    // commits a handful of rows per candidate, each after seconds of compiling and timing,
    // so the fsync costs nothing that matters.
    std::string mode = db->execAndGet("PRAGMA journal_mode = WAL").getString();
    if (mode != "wal" && mode != "memory")
      return fail(Stage::Store, fmt::format("cannot switch to WAL journal (got '{}')", mode), 0, path);
    db->exec("PRAGMA synchronous = FULL");
    return Store(path, std::move(db));
  });
}

Expected<std::string> Store::check_integrity() {
  return guard(path_, "integrity check", [&]() -> Expected<std::string> {
    std::string problems;
    SQLite::Statement integrity(*db_, "PRAGMA integrity_check");
    while (integrity.executeStep()) {
      std::string line = integrity.getColumn(0).getString();
      if (line != "ok") problems += line + "\n";
    }
    SQLite::Statement fk(*db_, "PRAGMA foreign_key_check");
    while (fk.executeStep())
      problems += fmt::format("foreign key violation: {} row {} -> {}\n", fk.getColumn(0).getString(),
                              fk.getColumn(1).getInt64(), fk.getColumn(2).getString());
    return problems.empty() ? std::string("ok") : problems;
  });
}

}  // namespace tdx
