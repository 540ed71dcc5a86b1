#include "tritondx/store/store_merge.h"

#include <fmt/format.h>

#include <map>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include "tritondx/store/store.h"

namespace tdx {
namespace {

// Each table's id columns and the table whose ids they hold.
struct TableIds {
  const char* table;
  std::map<std::string, std::string> ids;  // column -> table it refers to
};
const TableIds kTables[] = {
    {"runs", {{"id", "runs"}}},
    {"candidates", {{"id", "candidates"}, {"run_id", "runs"}, {"parent_id", "candidates"}}},
    {"findings", {{"id", "findings"}, {"candidate_id", "candidates"}}},
    {"evidence", {{"finding_id", "findings"}}},
    {"measurements", {{"id", "measurements"}, {"candidate_id", "candidates"}}},
    {"llm_calls", {{"id", "llm_calls"}, {"run_id", "runs"}, {"candidate_id", "candidates"}}},
};

std::vector<std::string> columns(SQLite::Database& db, const std::string& schema, const std::string& table) {
  std::vector<std::string> out;
  SQLite::Statement q(db, fmt::format("PRAGMA {}.table_info({})", schema, table));
  while (q.executeStep()) out.push_back(q.getColumn(1).getString());
  return out;
}

long long count(SQLite::Database& db, const std::string& sql) {
  return db.execAndGet(sql).getInt64();
}

}  // namespace

Expected<MergeStats> merge_store(const std::string& into, const std::string& from) {
  {
    // Both must be stores of this schema (the destination is created if missing).
    auto src = Store::open(from);
    if (!src) return std::unexpected(src.error());
    auto dst = Store::open(into);
    if (!dst) return std::unexpected(dst.error());
  }
  try {
    SQLite::Database db(into, SQLite::OPEN_READWRITE, 60000);
    db.exec("PRAGMA foreign_keys = ON");
    SQLite::Statement attach(db, "ATTACH DATABASE ? AS src");
    attach.bind(1, from);
    attach.exec();
    auto version = [&](const char* schema) {
      return db.execAndGet(fmt::format("SELECT value FROM {}.meta WHERE key = 'schema_version'", schema)).getString();
    };
    if (version("main") != version("src"))
      return fail(Stage::Store, fmt::format("cannot merge {} into {}: schema versions {} and {} differ", from, into,
                                            version("src"), version("main")));
    long long seen = count(db,
                           "SELECT count(*) FROM src.runs s JOIN main.runs m ON m.task_sha256 = s.task_sha256 AND "
                           "m.started_at = s.started_at AND m.task_path = s.task_path");
    if (seen > 0)
      return fail(Stage::Store, fmt::format("{} already holds {} run(s) of {} (merged before?); nothing merged", into,
                                            seen, from));
    SQLite::Transaction t(db, SQLite::TransactionBehavior::IMMEDIATE);
    std::map<std::string, long long> offset;
    for (const char* table : {"runs", "candidates", "findings", "measurements", "llm_calls"})
      offset[table] = count(db, fmt::format("SELECT coalesce(max(id), 0) FROM main.{}", table));
    for (const auto& t_ids : kTables) {
      auto cols = columns(db, "src", t_ids.table);
      std::string names, values;
      for (const auto& c : cols) {
        names += (names.empty() ? "" : ", ") + c;
        auto id = t_ids.ids.find(c);
        values += (values.empty() ? "" : ", ") +
                  (id == t_ids.ids.end() ? c : fmt::format("{} + {}", c, offset[id->second]));
      }
      db.exec(fmt::format("INSERT INTO main.{0} ({1}) SELECT {2} FROM src.{0}", t_ids.table, names, values));
    }
    MergeStats s;
    s.runs = count(db, "SELECT count(*) FROM src.runs");
    s.candidates = count(db, "SELECT count(*) FROM src.candidates");
    s.findings = count(db, "SELECT count(*) FROM src.findings");
    s.measurements = count(db, "SELECT count(*) FROM src.measurements");
    s.llm_calls = count(db, "SELECT count(*) FROM src.llm_calls");
    t.commit();
    return s;
  } catch (const std::exception& e) {
    return fail(Stage::Store, fmt::format("cannot merge {} into {}: {}", from, into, e.what()));
  }
}

}  // namespace tdx
