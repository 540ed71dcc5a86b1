#include "tritondx/store/store_merge.h"

#include <fmt/format.h>

#include <map>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include "tritondx/store/store.h"

namespace tdx {
namespace {

// Each table's id columns and the table whose ids they hold, and which of `src`'s rows belong
// to the runs being merged (temp.new_runs).
struct TableIds {
  const char* table;
  std::map<std::string, std::string> ids;  // column -> table it refers to
  const char* rows;                        // WHERE clause over src.<table>
  const char* order = "id";                // src's insertion order (parents before children)
};
constexpr const char* kNewCandidates = "SELECT id FROM src.candidates WHERE run_id IN (SELECT id FROM temp.new_runs)";
const TableIds kTables[] = {
    {"runs", {{"id", "runs"}}, "id IN (SELECT id FROM temp.new_runs)"},
    {"candidates", {{"id", "candidates"}, {"run_id", "runs"}, {"parent_id", "candidates"}},
     "run_id IN (SELECT id FROM temp.new_runs)"},
    {"findings", {{"id", "findings"}, {"candidate_id", "candidates"}}, "candidate_id IN (NEW_CANDIDATES)"},
    {"evidence", {{"finding_id", "findings"}},
     "finding_id IN (SELECT id FROM src.findings WHERE candidate_id IN (NEW_CANDIDATES))", "finding_id, position"},
    {"measurements", {{"id", "measurements"}, {"candidate_id", "candidates"}}, "candidate_id IN (NEW_CANDIDATES)"},
    {"llm_calls", {{"id", "llm_calls"}, {"run_id", "runs"}, {"candidate_id", "candidates"}},
     "run_id IN (SELECT id FROM temp.new_runs)"},
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
    // A run the destination already holds (same task, source and start) came from a common
    // ancestor of both stores, or an earlier merge: only the others are copied.
    db.exec("DROP TABLE IF EXISTS temp.new_runs");
    db.exec("CREATE TEMP TABLE new_runs AS SELECT s.id AS id FROM src.runs s WHERE NOT EXISTS (SELECT 1 FROM "
            "main.runs m WHERE m.task_sha256 = s.task_sha256 AND m.started_at = s.started_at AND "
            "m.task_path = s.task_path)");
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
      std::string rows = t_ids.rows;
      if (auto at = rows.find("NEW_CANDIDATES"); at != std::string::npos) rows.replace(at, 14, kNewCandidates);
      // In src's order: a parent candidate goes in before its children (an index scan picked for
      // the WHERE clause could otherwise order them differently).
      db.exec(fmt::format("INSERT INTO main.{0} ({1}) SELECT {2} FROM src.{0} WHERE {3} ORDER BY {4}", t_ids.table,
                          names, values, rows, t_ids.order));
    }
    auto merged = [&](const TableIds& t_ids) {
      std::string rows = t_ids.rows;
      if (auto at = rows.find("NEW_CANDIDATES"); at != std::string::npos) rows.replace(at, 14, kNewCandidates);
      return count(db, fmt::format("SELECT count(*) FROM src.{} WHERE {}", t_ids.table, rows));
    };
    MergeStats s;
    s.runs = merged(kTables[0]);
    s.candidates = merged(kTables[1]);
    s.findings = merged(kTables[2]);
    s.measurements = merged(kTables[4]);
    s.llm_calls = merged(kTables[5]);
    s.skipped_runs = count(db, "SELECT count(*) FROM src.runs") - s.runs;
    t.commit();
    return s;
  } catch (const std::exception& e) {
    return fail(Stage::Store, fmt::format("cannot merge {} into {}: {}", from, into, e.what()));
  }
}

}  // namespace tdx
