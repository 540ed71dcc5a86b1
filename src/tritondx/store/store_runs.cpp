// Runs: begin, finish, find the one to resume, and prepare it for resuming.
#include <array>
#include <utility>

#include "tritondx/store/store.h"
#include "tritondx/store/store_internal.h"

namespace tdx {

using namespace store_detail;

namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 4> kRunStatusNames{{
    {RunStatus::Running, "running"},
    {RunStatus::Finished, "finished"},
    {RunStatus::Interrupted, "interrupted"},
    {RunStatus::Failed, "failed"},
}};

constexpr const char* kRunColumns =
    "id, task_path, task_sha256, kernel, options, target, device, note, status, started_at, "
    "finished_at";

RunRecord read_run(SQLite::Statement& st) {
  RunRecord r;
  r.id = st.getColumn(0).getInt64();
  r.info.task_path = text(st.getColumn(1));
  r.info.task_sha256 = text(st.getColumn(2));
  r.info.kernel = text(st.getColumn(3));
  r.info.options = json_or_null(st.getColumn(4));
  r.info.target = text(st.getColumn(5));
  r.info.device = text(st.getColumn(6));
  r.info.note = text(st.getColumn(7));
  r.status = run_status_from_name(text(st.getColumn(8))).value_or(RunStatus::Failed);
  r.started_at = text(st.getColumn(9));
  r.finished_at = opt_text(st.getColumn(10));
  return r;
}

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string_view run_status_name(RunStatus status) {
  for (const auto& [s, name] : kRunStatusNames)
    if (s == status) return name;
  return "failed";
}

std::optional<RunStatus> run_status_from_name(std::string_view name) {
  for (const auto& [s, n] : kRunStatusNames)
    if (n == name) return s;
  return std::nullopt;
}

Expected<long long> Store::begin_run(const RunInfo& info) {
  if (!is_sha256_hex(info.task_sha256))
    return fail(Stage::Store,
                fmt::format("begin_run: task_sha256 '{}' is not 64 lowercase hex digits",
                            info.task_sha256),
                0, path_);
  return guard(path_, "begin_run", [&]() -> Expected<long long> {
    SQLite::Statement st(*db_,
                         "INSERT INTO runs (task_path, task_sha256, kernel, options, target, "
                         "device, note) VALUES (?, ?, ?, ?, ?, ?, ?)");
    bind_text(st, 1, info.task_path);
    bind_text(st, 2, info.task_sha256);
    bind_text(st, 3, info.kernel);
    bind_json(st, 4, info.options.is_null() ? nlohmann::json::object() : info.options);
    bind_text_or_null(st, 5, info.target);
    bind_text_or_null(st, 6, info.device);
    bind_text_or_null(st, 7, info.note);
    st.exec();
    return static_cast<long long>(db_->getLastInsertRowid());
  });
}

Expected<void> Store::finish_run(long long run_id, RunStatus status) {
  return guard(path_, "finish_run", [&]() -> Expected<void> {
    SQLite::Statement st(*db_,
                         "UPDATE runs SET status = ?, finished_at = CASE WHEN ? = 'running' "
                         "THEN NULL ELSE " TDX_STORE_NOW " END WHERE id = ?");
    bind_text(st, 1, run_status_name(status));
    bind_text(st, 2, run_status_name(status));
    bind_int(st, 3, run_id);
    if (st.exec() == 0) return fail(Stage::Store, fmt::format("finish_run: no run {}", run_id), 0, path_);
    return {};
  });
}

Expected<RunRecord> Store::run(long long run_id) {
  return guard(path_, "run", [&]() -> Expected<RunRecord> {
    SQLite::Statement st(*db_, fmt::format("SELECT {} FROM runs WHERE id = ?", kRunColumns));
    bind_int(st, 1, run_id);
    if (!st.executeStep()) return fail(Stage::Store, fmt::format("no run {}", run_id), 0, path_);
    return read_run(st);
  });
}

Expected<std::optional<RunRecord>> Store::latest_unfinished_run(std::string_view task_sha256,
                                                                std::string_view kernel) {
  return guard(path_, "latest_unfinished_run", [&]() -> Expected<std::optional<RunRecord>> {
    SQLite::Statement st(*db_, fmt::format("SELECT {} FROM runs WHERE task_sha256 = ? AND kernel = ? "
                                           "AND status IN ('running', 'interrupted') "
                                           "ORDER BY id DESC LIMIT 1",
                                           kRunColumns));
    bind_text(st, 1, task_sha256);
    bind_text(st, 2, kernel);
    if (!st.executeStep()) return std::optional<RunRecord>();
    return std::optional<RunRecord>(read_run(st));
  });
}

Expected<ResumeState> Store::resume_state(long long run_id) {
  return guard(path_, "resume_state", [&]() -> Expected<ResumeState> {
    {
      SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
      auto run_record = TDX_TRY(run(run_id));
      if (run_record.status == RunStatus::Finished)
        return fail(Stage::Store, fmt::format("run {} is finished; nothing to resume", run_id), 0, path_);
      // In-flight candidates start over: their partial findings and measurements go (the
      // evaluation is redone), their LLM calls stay (the tokens were spent).
      const char* in_flight = "SELECT id FROM candidates WHERE run_id = ?1 AND status IN ('proposed', 'evaluating')";
      for (const char* sql :
           {"DELETE FROM findings WHERE candidate_id IN ({})", "DELETE FROM measurements WHERE candidate_id IN ({})",
            "UPDATE candidates SET restarts = restarts + 1, status = 'proposed', updated_at = " TDX_STORE_NOW
            " WHERE id IN ({}) AND status = 'evaluating'"}) {
        SQLite::Statement st(*db_, fmt::format(fmt::runtime(sql), in_flight));
        bind_int(st, 1, run_id);
        st.exec();
      }
      SQLite::Statement reopen(*db_, "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?");
      bind_int(reopen, 1, run_id);
      reopen.exec();
      tx.commit();
    }
    ResumeState state;
    state.run = TDX_TRY(run(run_id));
    auto all = TDX_TRY(candidates(run_id));
    for (auto& c : all)
      (is_finished(c.status) ? state.finished : state.redo).push_back(std::move(c));
    state.llm_usage = TDX_TRY(llm_usage(run_id));
    return state;
  });
}

}  // namespace tdx
