// Findings with their evidence chains, and measurements: what was learnt about a candidate.
#include "tritondx/store/store.h"
#include "tritondx/store/store_internal.h"

namespace tdx {

using namespace store_detail;

namespace {

Level level_from_name(std::string_view name) {
  for (Level l : {Level::L0, Level::L1, Level::L2, Level::L3})
    if (level_name(l) == name) return l;
  return Level::L0;
}

std::vector<RewriteProposal> proposals_from_json(const nlohmann::json& finding) {
  std::vector<RewriteProposal> out;
  if (!finding.contains("proposals") || !finding["proposals"].is_array()) return out;
  for (const auto& p : finding["proposals"])
    // An id no built-in recipe has any more (a store written by an older tritondx) reads as advice.
    out.push_back({RecipeId::parse(p.value("recipe", "")).value_or(kAdvice), p.value("description", ""),
                   p.contains("params") ? p["params"] : nlohmann::json()});
  return out;
}

void bind_loc(SQLite::Statement& st, int index, const SourceLoc& loc) {
  bind_text_or_null(st, index, loc.file);
  bind_opt(st, index + 1, loc.line > 0 ? std::optional<int>(loc.line) : std::nullopt);
  bind_opt(st, index + 2, loc.col > 0 ? std::optional<int>(loc.col) : std::nullopt);
}

SourceLoc read_loc(SQLite::Statement& st, int index) {
  return {text(st.getColumn(index)), static_cast<int>(opt_int(st.getColumn(index + 1)).value_or(0)),
          static_cast<int>(opt_int(st.getColumn(index + 2)).value_or(0))};
}

}  // namespace

Expected<void> Store::add_findings(long long candidate_id, const std::vector<Finding>& findings) {
  return guard(path_, "add_findings", [&]() -> Expected<void> {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement next(*db_,
                           "SELECT coalesce(max(position) + 1, 0) FROM findings WHERE candidate_id = ?");
    bind_int(next, 1, candidate_id);
    next.executeStep();
    long long position = next.getColumn(0).getInt64();
    SQLite::Statement finding(*db_,
                              "INSERT INTO findings (candidate_id, position, rule_id, level, kernel, "
                              "file, line, col, symptom, cause, confidence, estimated_gain, json) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    SQLite::Statement link(*db_,
                           "INSERT INTO evidence (finding_id, position, stage, file, line, col, "
                           "ir_line, quote, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const Finding& f : findings) {
      bind_int(finding, 1, candidate_id);
      bind_int(finding, 2, position++);
      bind_text(finding, 3, f.rule_id);
      bind_text(finding, 4, level_name(f.level));
      bind_text(finding, 5, f.kernel);
      bind_loc(finding, 6, f.loc);
      bind_text(finding, 9, f.symptom);
      bind_text(finding, 10, f.cause);
      finding.bind(11, f.confidence);
      bind_opt(finding, 12, f.estimated_gain);
      bind_json(finding, 13, nlohmann::json(f));
      finding.exec();
      finding.reset();
      long long finding_id = db_->getLastInsertRowid();
      for (std::size_t i = 0; i < f.evidence.size(); ++i) {
        const EvidenceLink& e = f.evidence[i];
        bind_int(link, 1, finding_id);
        bind_int(link, 2, static_cast<long long>(i));
        bind_text(link, 3, stage_name(e.stage));
        bind_loc(link, 4, e.loc);
        bind_opt(link, 7, e.ir_line > 0 ? std::optional<int>(e.ir_line) : std::nullopt);
        bind_text(link, 8, e.quote);
        bind_text(link, 9, e.note);
        link.exec();
        link.reset();
      }
    }
    tx.commit();
    return {};
  });
}

Expected<std::vector<Finding>> Store::findings(long long candidate_id) {
  return guard(path_, "findings", [&]() -> Expected<std::vector<Finding>> {
    SQLite::Statement st(*db_,
                         "SELECT id, rule_id, level, kernel, file, line, col, symptom, cause, "
                         "confidence, estimated_gain, json FROM findings WHERE candidate_id = ? "
                         "ORDER BY position");
    SQLite::Statement links(*db_,
                            "SELECT stage, file, line, col, ir_line, quote, note FROM evidence "
                            "WHERE finding_id = ? ORDER BY position");
    bind_int(st, 1, candidate_id);
    std::vector<Finding> out;
    while (st.executeStep()) {
      Finding f;
      f.rule_id = text(st.getColumn(1));
      f.level = level_from_name(text(st.getColumn(2)));
      f.kernel = text(st.getColumn(3));
      f.loc = read_loc(st, 4);
      f.symptom = text(st.getColumn(7));
      f.cause = text(st.getColumn(8));
      f.confidence = st.getColumn(9).getDouble();
      f.estimated_gain = opt_double(st.getColumn(10));
      f.proposals = proposals_from_json(json_or_null(st.getColumn(11)));
      bind_int(links, 1, st.getColumn(0).getInt64());
      while (links.executeStep())
        f.evidence.push_back({stage_from_name(text(links.getColumn(0))), read_loc(links, 1),
                              static_cast<int>(opt_int(links.getColumn(4)).value_or(0)),
                              text(links.getColumn(5)), text(links.getColumn(6))});
      links.reset();
      out.push_back(std::move(f));
    }
    return out;
  });
}

Expected<long long> Store::add_measurement(long long candidate_id, const MeasurementRow& row) {
  return guard(path_, "add_measurement", [&]() -> Expected<long long> {
    SQLite::Statement st(*db_,
                         "INSERT INTO measurements (candidate_id, kind, device, median_ms, p10_ms, "
                         "p90_ms, reps, passed, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    bind_int(st, 1, candidate_id);
    bind_text(st, 2, row.kind);
    bind_text_or_null(st, 3, row.device);
    bind_opt(st, 4, row.median_ms);
    bind_opt(st, 5, row.p10_ms);
    bind_opt(st, 6, row.p90_ms);
    bind_opt(st, 7, row.reps);
    bind_opt(st, 8, row.passed ? std::optional<int>(*row.passed ? 1 : 0) : std::nullopt);
    bind_json(st, 9, row.json);
    st.exec();
    return static_cast<long long>(db_->getLastInsertRowid());
  });
}

Expected<std::vector<MeasurementRecord>> Store::measurements(long long candidate_id) {
  return guard(path_, "measurements", [&]() -> Expected<std::vector<MeasurementRecord>> {
    SQLite::Statement st(*db_,
                         "SELECT id, kind, device, median_ms, p10_ms, p90_ms, reps, passed, json, "
                         "created_at FROM measurements WHERE candidate_id = ? ORDER BY id");
    bind_int(st, 1, candidate_id);
    std::vector<MeasurementRecord> out;
    while (st.executeStep()) {
      MeasurementRecord m;
      m.id = st.getColumn(0).getInt64();
      m.candidate_id = candidate_id;
      m.row.kind = text(st.getColumn(1));
      m.row.device = text(st.getColumn(2));
      m.row.median_ms = opt_double(st.getColumn(3));
      m.row.p10_ms = opt_double(st.getColumn(4));
      m.row.p90_ms = opt_double(st.getColumn(5));
      if (auto reps = opt_int(st.getColumn(6))) m.row.reps = static_cast<int>(*reps);
      if (auto passed = opt_int(st.getColumn(7))) m.row.passed = *passed != 0;
      m.row.json = json_or_null(st.getColumn(8));
      m.created_at = text(st.getColumn(9));
      out.push_back(std::move(m));
    }
    return out;
  });
}

}  // namespace tdx
