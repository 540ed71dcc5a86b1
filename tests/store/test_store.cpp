// The store against a real SQLite file: open/refuse, and a round trip through every table.
#include <cmath>
#include <fstream>
#include <limits>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store_test_util.h"

namespace tdx {
namespace {

using store_test::sample_candidate;
using store_test::sample_finding;
using store_test::sample_run;
using store_test::TempDir;

Store open_ok(const std::string& path) {
  auto store = Store::open(path);
  if (!store) ADD_FAILURE() << store.error().to_string();
  return std::move(*store);
}

std::string scalar(Store& store, const std::string& sql) {
  return store.db().execAndGet(sql).getString();
}

TEST(StoreOpen, CreatesSchemaWithWalAndReopens) {
  TempDir dir;
  {
    Store store = open_ok(dir.file("t.db"));
    EXPECT_EQ(scalar(store, "SELECT value FROM meta WHERE key = 'schema_version'"),
              std::to_string(kStoreSchemaVersion));
    EXPECT_EQ(scalar(store, "PRAGMA journal_mode"), "wal");
    EXPECT_EQ(scalar(store, "PRAGMA foreign_keys"), "1");
    EXPECT_EQ(scalar(store, "PRAGMA synchronous"), "2");  // FULL
    ASSERT_TRUE(store.begin_run(sample_run()));
  }
  Store again = open_ok(dir.file("t.db"));
  EXPECT_EQ(scalar(again, "SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(*again.check_integrity(), "ok");
}

TEST(StoreOpen, RefusesAFileThatIsNotSqlite) {
  TempDir dir;
  std::ofstream(dir.file("notes.db")) << "these are my notes, not a database\n" << std::string(5000, 'x');
  auto store = Store::open(dir.file("notes.db"));
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().stage, Stage::Store);
  EXPECT_NE(store.error().message.find("not a SQLite database"), std::string::npos) << store.error().message;
  EXPECT_EQ(store.error().file, dir.file("notes.db"));
}

TEST(StoreOpen, RefusesAnotherApplicationsDatabaseAndLeavesItAlone) {
  TempDir dir;
  {
    SQLite::Database other(dir.file("other.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY)");
  }
  auto store = Store::open(dir.file("other.db"));
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("not a tritondx store"), std::string::npos) << store.error().message;
  SQLite::Database other(dir.file("other.db"));
  EXPECT_FALSE(other.tableExists("runs"));
  EXPECT_EQ(other.execAndGet("PRAGMA journal_mode").getString(), "delete");
}

TEST(StoreOpen, RefusesANewerSchemaVersion) {
  TempDir dir;
  { open_ok(dir.file("t.db")).db().exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'"); }
  auto store = Store::open(dir.file("t.db"));
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("schema version 99 is newer"), std::string::npos) << store.error().message;
}

TEST(StoreOpen, RefusesAnUnknownSchemaVersion) {
  TempDir dir;
  { open_ok(dir.file("t.db")).db().exec("UPDATE meta SET value = 'v1' WHERE key = 'schema_version'"); }
  auto store = Store::open(dir.file("t.db"));
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("unknown store schema version 'v1'"), std::string::npos)
      << store.error().message;
}

TEST(StoreOpen, ReportsAMissingDirectory) {
  auto store = Store::open("/nonexistent-dir-for-tritondx/t.db");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().stage, Stage::Store);
}

TEST(StoreRuns, RoundTripAndLatestUnfinished) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  RunInfo info = sample_run();
  long long first = *store.begin_run(info);
  long long second = *store.begin_run(info);
  RunInfo other_kernel = info;
  other_kernel.kernel = "other_kernel";
  long long third = *store.begin_run(other_kernel);

  auto r = store.run(first);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->info.task_path, info.task_path);
  EXPECT_EQ(r->info.task_sha256, info.task_sha256);
  EXPECT_EQ(r->info.kernel, info.kernel);
  EXPECT_EQ(r->info.options, info.options);
  EXPECT_EQ(r->info.target, "sm_90");
  EXPECT_EQ(r->info.device, "NVIDIA H200");
  EXPECT_EQ(r->info.note, "test");
  EXPECT_EQ(r->status, RunStatus::Running);
  EXPECT_FALSE(r->finished_at);
  EXPECT_EQ(r->started_at.size(), std::string("2026-12-03T07:51:34.123Z").size());

  EXPECT_EQ((*store.latest_unfinished_run(info.task_sha256, info.kernel))->id, second);
  ASSERT_TRUE(store.finish_run(second, RunStatus::Finished));
  EXPECT_TRUE(store.run(second)->finished_at);
  EXPECT_EQ((*store.latest_unfinished_run(info.task_sha256, info.kernel))->id, first);
  ASSERT_TRUE(store.finish_run(first, RunStatus::Interrupted));
  EXPECT_EQ((*store.latest_unfinished_run(info.task_sha256, info.kernel))->id, first);
  ASSERT_TRUE(store.finish_run(first, RunStatus::Failed));
  EXPECT_FALSE(*store.latest_unfinished_run(info.task_sha256, info.kernel));
  EXPECT_EQ((*store.latest_unfinished_run(info.task_sha256, "other_kernel"))->id, third);
  EXPECT_FALSE(*store.latest_unfinished_run(sha256_hex("another task"), info.kernel));
  EXPECT_FALSE(store.finish_run(12345, RunStatus::Finished));
  EXPECT_FALSE(store.run(12345));
}

TEST(StoreRuns, RefusesABadTaskHash) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  RunInfo info = sample_run();
  info.task_sha256 = "abc";
  auto id = store.begin_run(info);
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("64 lowercase hex"), std::string::npos);
}

TEST(StoreCandidates, RoundTrip) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  Candidate original = sample_candidate("original source\n", "");
  original.targets.clear();
  original.params = nullptr;
  original.target_loc = {};
  auto orig_id = store.add_candidate(run, std::nullopt, 0, original, CandidateStatus::Verified);
  ASSERT_TRUE(orig_id) << orig_id.error().to_string();
  Candidate child = sample_candidate(std::string(20000, 'k') + "\n");
  auto child_id = store.add_candidate(run, *orig_id, 1, child);
  ASSERT_TRUE(child_id) << child_id.error().to_string();

  ASSERT_TRUE(store.set_candidate_status(*child_id, CandidateStatus::Evaluating));
  ASSERT_TRUE(store.set_target_gone(*child_id, true));
  ASSERT_TRUE(store.set_score(*child_id, {{"speedup", 1.42}, {"median_ms", 0.031}}));
  ASSERT_TRUE(store.set_candidate_status(*child_id, CandidateStatus::Rejected, "verify",
                                         "max abs error 3e-2 > atol 1e-3"));

  auto all = store.candidates(run);
  ASSERT_TRUE(all) << all.error().to_string();
  ASSERT_EQ(all->size(), 2u);
  const CandidateRecord& o = (*all)[0];
  EXPECT_EQ(o.id, *orig_id);
  EXPECT_FALSE(o.parent_id);
  EXPECT_EQ(o.candidate.rewriter, "original");
  EXPECT_EQ(o.candidate.recipe, "");
  EXPECT_TRUE(o.candidate.targets.empty());
  EXPECT_TRUE(o.candidate.params.is_null());
  EXPECT_EQ(o.candidate.target_loc.line, 0);
  EXPECT_EQ(o.status, CandidateStatus::Verified);
  EXPECT_FALSE(o.target_gone);
  EXPECT_TRUE(o.score.is_null());
  EXPECT_EQ(o.source_sha256, sha256_hex("original source\n"));

  const CandidateRecord& c = (*all)[1];
  EXPECT_EQ(c.run_id, run);
  EXPECT_EQ(c.parent_id, *orig_id);
  EXPECT_EQ(c.generation, 1);
  EXPECT_EQ(c.candidate.source, child.source);
  EXPECT_EQ(c.candidate.rewriter, "recipe");
  EXPECT_EQ(c.candidate.recipe, "exp-to-exp2");
  EXPECT_EQ(c.candidate.kernel, child.kernel);
  EXPECT_EQ(c.candidate.targets, child.targets);
  EXPECT_EQ(c.candidate.target_loc.line, 12);
  EXPECT_EQ(c.candidate.description, child.description);
  EXPECT_EQ(c.candidate.params, child.params);
  EXPECT_EQ(c.candidate.diff, child.diff);
  EXPECT_EQ(c.status, CandidateStatus::Rejected);
  EXPECT_EQ(c.reject_stage, "verify");
  EXPECT_EQ(c.reject_reason, "max abs error 3e-2 > atol 1e-3");
  EXPECT_EQ(c.target_gone, true);
  EXPECT_EQ(c.score["speedup"], 1.42);
  EXPECT_EQ(c.restarts, 0);
  EXPECT_FALSE(c.created_at.empty());
  EXPECT_GE(c.updated_at, c.created_at);
  EXPECT_EQ(store.candidate(*child_id)->candidate.source, child.source);
}

TEST(StoreCandidates, StatusRules) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  long long a = *store.add_candidate(run, o, 1, sample_candidate("a"));
  long long b = *store.add_candidate(run, o, 1, sample_candidate("b", "llm"));
  // Rejecting needs a reason; a reason needs rejecting.
  EXPECT_FALSE(store.set_candidate_status(a, CandidateStatus::Rejected));
  EXPECT_FALSE(store.set_candidate_status(a, CandidateStatus::Verified, "verify", "why"));
  EXPECT_FALSE(store.set_candidate_status(9999, CandidateStatus::Verified));
  EXPECT_FALSE(store.set_target_gone(9999, true));
  EXPECT_FALSE(store.set_score(9999, 1));
  // One best per run: the previous best becomes accepted.
  ASSERT_TRUE(store.set_candidate_status(a, CandidateStatus::Best));
  ASSERT_TRUE(store.set_candidate_status(b, CandidateStatus::Best));
  EXPECT_EQ(store.candidate(a)->status, CandidateStatus::Accepted);
  EXPECT_EQ(store.candidate(b)->status, CandidateStatus::Best);
  EXPECT_FALSE(store.candidate(12345));
}

TEST(StoreCandidates, UniqueConstraints) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  long long other_run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  long long a = *store.add_candidate(run, o, 1, sample_candidate("same"));

  // The same source twice in one run: refused, naming the candidate that has it.
  auto dup = store.add_candidate(run, o, 2, sample_candidate("same", "llm"));
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find(fmt::format("already has candidate {}", a)), std::string::npos)
      << dup.error().message;
  EXPECT_EQ(*store.find_candidate(run, sha256_hex("same")), a);
  EXPECT_FALSE(*store.find_candidate(run, sha256_hex("nope")));
  // ... and the constraint itself holds below the API.
  EXPECT_THROW(store.db().exec(fmt::format(
                   "INSERT INTO candidates (run_id, parent_id, generation, kernel, rewriter, "
                   "source, source_sha256, status) SELECT run_id, parent_id, generation, kernel, "
                   "rewriter, source, source_sha256, status FROM candidates WHERE id = {}",
                   a)),
               SQLite::Exception);

  // Another run may hold the same source.
  long long other_o = *store.add_candidate(other_run, std::nullopt, 0, sample_candidate("o", "original"));
  EXPECT_TRUE(store.add_candidate(other_run, other_o, 1, sample_candidate("same")));
  // One original per run; an original has no parent, a rewrite has one.
  EXPECT_FALSE(store.add_candidate(run, std::nullopt, 0, sample_candidate("o2", "original")));
  EXPECT_FALSE(store.add_candidate(run, std::nullopt, 0, sample_candidate("o3", "recipe")));
  EXPECT_FALSE(store.add_candidate(run, o, 1, sample_candidate("o4", "original")));
  // A parent from another run, a missing parent or run.
  auto cross = store.add_candidate(run, other_o, 1, sample_candidate("cross"));
  ASSERT_FALSE(cross);
  EXPECT_NE(cross.error().message.find("another run"), std::string::npos) << cross.error().message;
  EXPECT_FALSE(store.add_candidate(run, 9999, 1, sample_candidate("orphan")));
  EXPECT_FALSE(store.add_candidate(9999, std::nullopt, 0, sample_candidate("no run", "original")));
  EXPECT_EQ(store.candidates(run)->size(), 2u);
}

TEST(StoreFindings, RoundTripWithEvidenceInOrder) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  Finding a = sample_finding("l2-scalar-global-access", 3);
  Finding b = sample_finding("l0-exp-not-exp2", 0);
  b.level = Level::L0;
  b.estimated_gain.reset();
  b.loc = {};
  b.proposals.clear();
  ASSERT_TRUE(store.add_findings(o, {a, b}));
  Finding c = sample_finding("l3-pipeliner-skipped", 1);
  c.level = Level::L3;
  ASSERT_TRUE(store.add_findings(o, {c}));
  ASSERT_TRUE(store.add_findings(o, {}));

  auto got = store.findings(o);
  ASSERT_TRUE(got) << got.error().to_string();
  ASSERT_EQ(got->size(), 3u);
  std::vector<Finding> want{a, b, c};
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(nlohmann::json((*got)[i]), nlohmann::json(want[i])) << i;
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM evidence"), "4");
  EXPECT_EQ(scalar(store, "SELECT group_concat(position) FROM (SELECT position FROM findings ORDER BY position)"),
            "0,1,2");
  EXPECT_EQ(scalar(store, "SELECT json_extract(json, '$.rule') FROM findings WHERE position = 2"),
            "l3-pipeliner-skipped");
}

TEST(StoreFindings, AFailingBatchLeavesNothing) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  Finding bad = sample_finding("l2-bad", 2);
  bad.confidence = std::numeric_limits<double>::quiet_NaN();  // SQLite stores NaN as NULL: NOT NULL fails
  auto r = store.add_findings(o, {sample_finding("l2-good", 2), bad});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().stage, Stage::Store);
  EXPECT_EQ(store.findings(o)->size(), 0u);
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM evidence"), "0");
  EXPECT_FALSE(store.add_findings(9999, {sample_finding("l2-no-candidate")}));
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM findings"), "0");
}

TEST(StoreMeasurements, RoundTripWithNulls) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  MeasurementRow timing{"timing", "NVIDIA H200", 0.031, 0.030, 0.034, 200, std::nullopt,
                        {{"samples", {0.03, 0.031}}}};
  MeasurementRow check{"correctness", "", std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, nullptr};
  long long t = *store.add_measurement(o, timing);
  long long k = *store.add_measurement(o, check);
  EXPECT_LT(t, k);
  auto got = store.measurements(o);
  ASSERT_TRUE(got) << got.error().to_string();
  ASSERT_EQ(got->size(), 2u);
  const MeasurementRow& g0 = (*got)[0].row;
  EXPECT_EQ((*got)[0].candidate_id, o);
  EXPECT_EQ(g0.kind, "timing");
  EXPECT_EQ(g0.device, "NVIDIA H200");
  EXPECT_EQ(g0.median_ms, 0.031);
  EXPECT_EQ(g0.p10_ms, 0.030);
  EXPECT_EQ(g0.p90_ms, 0.034);
  EXPECT_EQ(g0.reps, 200);
  EXPECT_FALSE(g0.passed);
  EXPECT_EQ(g0.json, timing.json);
  const MeasurementRow& g1 = (*got)[1].row;
  EXPECT_EQ(g1.kind, "correctness");
  EXPECT_EQ(g1.device, "");
  EXPECT_FALSE(g1.median_ms);
  EXPECT_FALSE(g1.reps);
  EXPECT_EQ(g1.passed, false);
  EXPECT_TRUE(g1.json.is_null());
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM measurements WHERE median_ms IS NULL AND json IS NULL"), "1");
  EXPECT_FALSE(store.add_measurement(o, MeasurementRow{}));  // kind is required
  EXPECT_FALSE(store.add_measurement(9999, timing));
}

TEST(StoreLlmCalls, RoundTripUsageAndTypes) {
  TempDir dir;
  Store store = open_ok(dir.file("t.db"));
  long long run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  nlohmann::json ok{{"model", "gpt-x"},        {"endpoint", "https://llm.example/v1"},
                    {"attempt", 1},            {"status", "ok"},
                    {"http_status", 200},      {"prompt_tokens", 1200},
                    {"completion_tokens", 300}, {"cost_usd", 0.0123},
                    {"latency_s", 4.5},        {"request", {{"messages", {{{"role", "user"}}}}}},
                    {"reply", "```python\nsource\n```"}, {"extra", "ignored"}};
  long long first = *store.add_llm_call(run, o, ok);
  nlohmann::json timeout{{"model", "gpt-x"}, {"attempt", 2}, {"status", "timeout"}, {"error", "no reply in 60 s"}};
  ASSERT_TRUE(store.add_llm_call(run, std::nullopt, timeout));
  nlohmann::json json_reply{{"status", "malformed"}, {"prompt_tokens", 10}, {"reply", {{"choices", nullptr}}}};
  ASSERT_TRUE(store.add_llm_call(run, o, json_reply));

  SQLite::Statement st(store.db(),
                       "SELECT model, endpoint, attempt, status, http_status, prompt_tokens, "
                       "completion_tokens, cost_usd, latency_s, request, reply, error, candidate_id "
                       "FROM llm_calls WHERE id = ?");
  st.bind(1, static_cast<std::int64_t>(first));
  ASSERT_TRUE(st.executeStep());
  EXPECT_EQ(st.getColumn(0).getString(), "gpt-x");
  EXPECT_EQ(st.getColumn(1).getString(), "https://llm.example/v1");
  EXPECT_EQ(st.getColumn(2).getInt(), 1);
  EXPECT_EQ(st.getColumn(3).getString(), "ok");
  EXPECT_EQ(st.getColumn(4).getInt(), 200);
  EXPECT_EQ(st.getColumn(5).getInt(), 1200);
  EXPECT_EQ(st.getColumn(6).getInt(), 300);
  EXPECT_DOUBLE_EQ(st.getColumn(7).getDouble(), 0.0123);
  EXPECT_DOUBLE_EQ(st.getColumn(8).getDouble(), 4.5);
  EXPECT_EQ(nlohmann::json::parse(st.getColumn(9).getString()), ok["request"]);
  EXPECT_EQ(st.getColumn(10).getString(), "```python\nsource\n```");
  EXPECT_TRUE(st.getColumn(11).isNull());
  EXPECT_EQ(st.getColumn(12).getInt64(), o);
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM llm_calls WHERE candidate_id IS NULL AND http_status IS NULL "
                          "AND request IS NULL AND reply IS NULL AND error = 'no reply in 60 s'"),
            "1");
  EXPECT_EQ(scalar(store, "SELECT reply FROM llm_calls WHERE status = 'malformed'"), R"({"choices":null})");

  auto usage = store.llm_usage(run);
  ASSERT_TRUE(usage) << usage.error().to_string();
  EXPECT_EQ(usage->calls, 3);
  EXPECT_EQ(usage->failed_calls, 2);
  EXPECT_EQ(usage->prompt_tokens, 1210);
  EXPECT_EQ(usage->completion_tokens, 300);
  EXPECT_DOUBLE_EQ(usage->cost_usd, 0.0123);
  EXPECT_EQ(store.llm_usage(9999)->calls, 0);

  auto mistyped = store.add_llm_call(run, o, {{"prompt_tokens", "1200"}});
  ASSERT_FALSE(mistyped);
  EXPECT_NE(mistyped.error().message.find("'prompt_tokens' must be an integer"), std::string::npos)
      << mistyped.error().message;
  EXPECT_FALSE(store.add_llm_call(run, o, nlohmann::json::array()));
  EXPECT_FALSE(store.add_llm_call(9999, std::nullopt, ok));
  EXPECT_EQ(store.llm_usage(run)->calls, 3);
}

}  // namespace
}  // namespace tdx
