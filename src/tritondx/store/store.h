// The optimize loop's SQLite store: runs, candidates (complete source), findings with their
// evidence, measurements and LLM calls, each written in its own transaction as work happens,
// so that killing the process loses at most the candidate in flight and `tritondx optimize
// --resume` continues where it stopped. Schema and resume semantics: docs/store-schema.md.
//
// A Store is one connection; it is not thread-safe, and must not be carried across fork().
//
// The header is a map of the files that implement it:
//   store_open.cpp        open(): refusing foreign files, the schema version check
//   store_schema.cpp      the tables, indexes and triggers
//   store_runs.cpp        runs, latest_unfinished_run(), resume_state()
//   store_candidates.cpp  candidates
//   store_findings.cpp    findings + evidence, measurements
//   store_llm.cpp         LLM calls and their usage
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"
#include "tritondx/ladder/finding.h"
#include "tritondx/rewrite/candidate.h"

namespace SQLite {
class Database;
}

namespace tdx {

// The schema version this build writes; open() refuses files with a newer one.
inline constexpr int kStoreSchemaVersion = 1;

enum class RunStatus { Running, Finished, Interrupted, Failed };
std::string_view run_status_name(RunStatus status);  // "running" ...
std::optional<RunStatus> run_status_from_name(std::string_view name);

// proposed -> evaluating -> rejected | verified -> accepted -> best. Proposed and evaluating
// are "in flight": resume_state() hands them back to be evaluated again.
enum class CandidateStatus { Proposed, Evaluating, Rejected, Verified, Accepted, Best };
std::string_view candidate_status_name(CandidateStatus status);  // "proposed" ...
std::optional<CandidateStatus> candidate_status_from_name(std::string_view name);
bool is_finished(CandidateStatus status);  // rejected, verified, accepted, best

struct RunInfo {
  std::string task_path;
  std::string task_sha256;  // sha256_hex(task file text): 64 lowercase hex digits
  std::string kernel;
  nlohmann::json options = nlohmann::json::object();  // the optimize options, for --resume
  std::string target;                                 // "sm_90"
  std::string device;                                 // "NVIDIA H200", or "" without a GPU
  std::string note;
};

struct RunRecord {
  long long id = 0;
  RunInfo info;
  RunStatus status = RunStatus::Running;
  std::string started_at;                  // ISO-8601 UTC, "2026-12-03T07:51:34.123Z"
  std::optional<std::string> finished_at;  // set by finish_run()
};

struct CandidateRecord {
  long long id = 0;
  long long run_id = 0;
  std::optional<long long> parent_id;  // none for the original kernel
  int generation = 0;                  // 0 for the original
  Candidate candidate;                 // rewriter is "original" for the original kernel
  std::string source_sha256;
  CandidateStatus status = CandidateStatus::Proposed;
  std::string reject_stage;   // "" unless rejected
  std::string reject_reason;  // "" unless rejected
  std::optional<bool> target_gone;  // did the targeted finding disappear? unknown until checked
  nlohmann::json score;             // null until scored
  int restarts = 0;  // times resume_state() found it in flight and handed it back
  std::string created_at;
  std::string updated_at;
};

// One measurement of a candidate. Absent numbers are stored as NULL.
struct MeasurementRow {
  std::string kind;  // "timing", "correctness", "compile", "whatif", "static-cost", ...
  std::string device;
  std::optional<double> median_ms;
  std::optional<double> p10_ms;
  std::optional<double> p90_ms;
  std::optional<int> reps;
  std::optional<bool> passed;
  nlohmann::json json;  // the full measurement; null -> NULL
};

struct MeasurementRecord {
  long long id = 0;
  long long candidate_id = 0;
  MeasurementRow row;
  std::string created_at;
};

struct LlmUsage {
  long long calls = 0;
  long long failed_calls = 0;  // status other than "ok"
  long long prompt_tokens = 0;
  long long completion_tokens = 0;
  double cost_usd = 0;
};

// What `--resume` needs: the run, the candidates that are done (kept as they are), and the
// ones that were in flight when the process died. resume_state() has already reset those to
// `proposed`, deleted their partial findings and measurements, and counted a restart.
struct ResumeState {
  RunRecord run;
  std::vector<CandidateRecord> finished;
  std::vector<CandidateRecord> redo;
  LlmUsage llm_usage;
};

class Store {
 public:
  // Opens or creates the store at `path`. Refuses a file that is not SQLite, a SQLite file
  // that is not a tritondx store, and a store written with a newer schema version.
  static Expected<Store> open(const std::string& path);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const { return path_; }

  // store_runs.cpp
  Expected<long long> begin_run(const RunInfo& info);
  Expected<void> finish_run(long long run_id, RunStatus status);
  Expected<RunRecord> run(long long run_id);
  // The newest run of this task text and kernel whose status is running or interrupted.
  Expected<std::optional<RunRecord>> latest_unfinished_run(std::string_view task_sha256,
                                                           std::string_view kernel);
  // Prepares `run_id` for resuming (one transaction): marks it running again and hands back
  // in-flight candidates as `redo` (see ResumeState).
  Expected<ResumeState> resume_state(long long run_id);

  // store_candidates.cpp
  // The original kernel has no parent, generation 0 and rewriter "original" (or empty).
  // A run holds one original and never the same source twice (see find_candidate()).
  Expected<long long> add_candidate(long long run_id, std::optional<long long> parent_id,
                                    int generation, const Candidate& candidate,
                                    CandidateStatus status = CandidateStatus::Proposed);
  // Setting `best` demotes the run's previous best to `accepted` in the same transaction.
  Expected<void> set_candidate_status(long long candidate_id, CandidateStatus status,
                                      std::string_view reject_stage = {},
                                      std::string_view reject_reason = {});
  Expected<void> set_target_gone(long long candidate_id, bool gone);
  Expected<void> set_score(long long candidate_id, const nlohmann::json& score);
  Expected<CandidateRecord> candidate(long long candidate_id);
  Expected<std::vector<CandidateRecord>> candidates(long long run_id);  // by id
  Expected<std::optional<long long>> find_candidate(long long run_id,
                                                    std::string_view source_sha256);

  // store_findings.cpp
  // Appends findings (and every evidence link) in one transaction.
  Expected<void> add_findings(long long candidate_id, const std::vector<Finding>& findings);
  Expected<std::vector<Finding>> findings(long long candidate_id);  // in insertion order
  Expected<long long> add_measurement(long long candidate_id, const MeasurementRow& row);
  Expected<std::vector<MeasurementRecord>> measurements(long long candidate_id);

  // store_llm.cpp
  // `call` keys: model, endpoint, attempt, status, http_status, prompt_tokens,
  // completion_tokens, cost_usd, latency_s, request, reply, error; a missing or null key is
  // stored as NULL, a key of the wrong type is an error, other keys are ignored.
  Expected<long long> add_llm_call(long long run_id, std::optional<long long> candidate_id,
                                   const nlohmann::json& call);
  Expected<LlmUsage> llm_usage(long long run_id);

  // For tests and `tritondx` diagnostics: runs PRAGMA integrity_check and
  // foreign_key_check; returns "ok" or the problems found.
  Expected<std::string> check_integrity();

  SQLite::Database& db() { return *db_; }

 private:
  Store(std::string path, std::unique_ptr<SQLite::Database> db);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace tdx
