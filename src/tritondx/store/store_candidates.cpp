// Candidates: the complete source of every kernel version a run tried, and what became of it.
#include <array>
#include <utility>

#include "tritondx/store/sha256.h"
#include "tritondx/store/store.h"
#include "tritondx/store/store_internal.h"

namespace tdx {

using namespace store_detail;

namespace {

constexpr std::array<std::pair<CandidateStatus, std::string_view>, 6> kCandidateStatusNames{{
    {CandidateStatus::Proposed, "proposed"},
    {CandidateStatus::Evaluating, "evaluating"},
    {CandidateStatus::Rejected, "rejected"},
    {CandidateStatus::Verified, "verified"},
    {CandidateStatus::Accepted, "accepted"},
    {CandidateStatus::Best, "best"},
}};

constexpr const char* kCandidateColumns =
    "id, run_id, parent_id, generation, kernel, rewriter, recipe, targets, target_line, "
    "description, params, source, source_sha256, diff, status, reject_stage, reject_reason, "
    "target_gone, score, restarts, created_at, updated_at";

CandidateRecord read_candidate(SQLite::Statement& st) {
  CandidateRecord r;
  r.id = st.getColumn(0).getInt64();
  r.run_id = st.getColumn(1).getInt64();
  r.parent_id = opt_int(st.getColumn(2));
  r.generation = st.getColumn(3).getInt();
  Candidate& c = r.candidate;
  c.kernel = text(st.getColumn(4));
  c.rewriter = text(st.getColumn(5));
  c.recipe = text(st.getColumn(6));
  c.targets = nlohmann::json::parse(text(st.getColumn(7))).get<std::vector<std::string>>();
  c.target_loc.line = static_cast<int>(opt_int(st.getColumn(8)).value_or(0));
  c.description = text(st.getColumn(9));
  c.params = json_or_null(st.getColumn(10));
  c.source = text(st.getColumn(11));
  r.source_sha256 = text(st.getColumn(12));
  c.diff = text(st.getColumn(13));
  r.status = candidate_status_from_name(text(st.getColumn(14))).value_or(CandidateStatus::Proposed);
  r.reject_stage = text(st.getColumn(15));
  r.reject_reason = text(st.getColumn(16));
  if (auto gone = opt_int(st.getColumn(17))) r.target_gone = *gone != 0;
  r.score = json_or_null(st.getColumn(18));
  r.restarts = st.getColumn(19).getInt();
  r.created_at = text(st.getColumn(20));
  r.updated_at = text(st.getColumn(21));
  return r;
}

// Runs a one-row UPDATE of a candidate; a missing candidate is an error.
template <class Bind>
Expected<void> update_candidate(SQLite::Database& db, const std::string& path, long long id,
                                const char* set_sql, Bind&& bind) {
  SQLite::Statement st(db, fmt::format("UPDATE candidates SET {}, updated_at = " TDX_STORE_NOW
                                       " WHERE id = ?1",
                                       set_sql));
  bind_int(st, 1, id);
  bind(st);
  if (st.exec() == 0) return fail(Stage::Store, fmt::format("no candidate {}", id), 0, path);
  return {};
}

}  // namespace

std::string_view candidate_status_name(CandidateStatus status) {
  for (const auto& [s, name] : kCandidateStatusNames)
    if (s == status) return name;
  return "proposed";
}

std::optional<CandidateStatus> candidate_status_from_name(std::string_view name) {
  for (const auto& [s, n] : kCandidateStatusNames)
    if (n == name) return s;
  return std::nullopt;
}

bool is_finished(CandidateStatus status) {
  return status != CandidateStatus::Proposed && status != CandidateStatus::Evaluating;
}

Expected<long long> Store::add_candidate(long long run_id, std::optional<long long> parent_id,
                                         int generation, const Candidate& candidate,
                                         CandidateStatus status) {
  std::string rewriter = candidate.rewriter.empty() && !parent_id ? "original" : candidate.rewriter;
  if ((rewriter == "original") != !parent_id)
    return fail(Stage::Store,
                fmt::format("add_candidate: rewriter '{}' {} a parent (only the original kernel "
                            "has none)",
                            rewriter, parent_id ? "with" : "without"),
                0, path_);
  if (status == CandidateStatus::Rejected)
    return fail(Stage::Store, "add_candidate: add it, then reject it with a reason", 0, path_);
  std::string sha = sha256_hex(candidate.source);
  return guard(path_, "add_candidate", [&]() -> Expected<long long> {
    // The UNIQUE (run_id, source_sha256) constraint is the guard; this gives it a clear message.
    if (auto same = TDX_TRY(find_candidate(run_id, sha)))
      return fail(Stage::Store,
                  fmt::format("add_candidate: run {} already has candidate {} with the same source",
                              run_id, *same),
                  0, path_);
    SQLite::Statement st(*db_,
                         "INSERT INTO candidates (run_id, parent_id, generation, kernel, rewriter, "
                         "recipe, targets, target_line, description, params, source, "
                         "source_sha256, diff, status) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    bind_int(st, 1, run_id);
    bind_opt(st, 2, parent_id);
    bind_int(st, 3, generation);
    bind_text(st, 4, candidate.kernel);
    bind_text(st, 5, rewriter);
    bind_text_or_null(st, 6, candidate.recipe);
    bind_json(st, 7, nlohmann::json(candidate.targets));
    bind_opt(st, 8, candidate.target_loc.known() ? std::optional<int>(candidate.target_loc.line)
                                                 : std::nullopt);
    bind_text(st, 9, candidate.description);
    bind_json(st, 10, candidate.params);
    bind_text(st, 11, candidate.source);
    bind_text(st, 12, sha);
    bind_text(st, 13, candidate.diff);
    bind_text(st, 14, candidate_status_name(status));
    st.exec();
    return static_cast<long long>(db_->getLastInsertRowid());
  });
}

Expected<void> Store::set_candidate_status(long long candidate_id, CandidateStatus status,
                                           std::string_view reject_stage,
                                           std::string_view reject_reason) {
  if (status == CandidateStatus::Rejected && reject_reason.empty())
    return fail(Stage::Store,
                fmt::format("set_candidate_status: rejecting candidate {} needs a reason", candidate_id),
                0, path_);
  if (status != CandidateStatus::Rejected && (!reject_stage.empty() || !reject_reason.empty()))
    return fail(Stage::Store, "set_candidate_status: a reject stage or reason without rejecting", 0, path_);
  return guard(path_, "set_candidate_status", [&]() -> Expected<void> {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    if (status == CandidateStatus::Best) {
      SQLite::Statement demote(*db_,
                               "UPDATE candidates SET status = 'accepted', updated_at = " TDX_STORE_NOW
                               " WHERE status = 'best' AND id <> ?1 AND run_id = "
                               "(SELECT run_id FROM candidates WHERE id = ?1)");
      bind_int(demote, 1, candidate_id);
      demote.exec();
    }
    TDX_STORE_TRY_VOID(update_candidate(*db_, path_, candidate_id,
                             "status = ?2, reject_stage = ?3, reject_reason = ?4", [&](auto& st) {
                               bind_text(st, 2, candidate_status_name(status));
                               bind_text_or_null(st, 3, reject_stage);
                               bind_text_or_null(st, 4, reject_reason);
                             }));
    tx.commit();
    return {};
  });
}

Expected<void> Store::set_target_gone(long long candidate_id, bool gone) {
  return guard(path_, "set_target_gone", [&]() -> Expected<void> {
    return update_candidate(*db_, path_, candidate_id, "target_gone = ?2",
                            [&](auto& st) { bind_int(st, 2, gone ? 1 : 0); });
  });
}

Expected<void> Store::set_score(long long candidate_id, const nlohmann::json& score) {
  return guard(path_, "set_score", [&]() -> Expected<void> {
    return update_candidate(*db_, path_, candidate_id, "score = ?2",
                            [&](auto& st) { bind_json(st, 2, score); });
  });
}

Expected<CandidateRecord> Store::candidate(long long candidate_id) {
  return guard(path_, "candidate", [&]() -> Expected<CandidateRecord> {
    SQLite::Statement st(*db_, fmt::format("SELECT {} FROM candidates WHERE id = ?", kCandidateColumns));
    bind_int(st, 1, candidate_id);
    if (!st.executeStep())
      return fail(Stage::Store, fmt::format("no candidate {}", candidate_id), 0, path_);
    return read_candidate(st);
  });
}

Expected<std::vector<CandidateRecord>> Store::candidates(long long run_id) {
  return guard(path_, "candidates", [&]() -> Expected<std::vector<CandidateRecord>> {
    SQLite::Statement st(*db_, fmt::format("SELECT {} FROM candidates WHERE run_id = ? ORDER BY id",
                                           kCandidateColumns));
    bind_int(st, 1, run_id);
    std::vector<CandidateRecord> out;
    while (st.executeStep()) out.push_back(read_candidate(st));
    return out;
  });
}

Expected<std::optional<long long>> Store::find_candidate(long long run_id,
                                                         std::string_view source_sha256) {
  return guard(path_, "find_candidate", [&]() -> Expected<std::optional<long long>> {
    SQLite::Statement st(*db_, "SELECT id FROM candidates WHERE run_id = ? AND source_sha256 = ?");
    bind_int(st, 1, run_id);
    bind_text(st, 2, source_sha256);
    if (!st.executeStep()) return std::optional<long long>();
    return std::optional<long long>(st.getColumn(0).getInt64());
  });
}

}  // namespace tdx
