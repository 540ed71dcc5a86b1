// LLM calls: every request and reply with its tokens and cost, failed ones included.
#include "tritondx/store/store.h"
#include "tritondx/store/store_internal.h"

namespace tdx {

using namespace store_detail;

namespace {

enum class Kind { Text, Integer, Real };

// Binds call[key] as `kind`; a missing or null key binds NULL, a mistyped one is an error.
Expected<void> bind_key(SQLite::Statement& st, int index, const nlohmann::json& call,
                        const char* key, Kind kind, const std::string& path) {
  auto it = call.find(key);
  if (it == call.end() || it->is_null()) {
    st.bind(index);
    return {};
  }
  const nlohmann::json& v = *it;
  switch (kind) {
    case Kind::Text:
      if (!v.is_string()) break;
      st.bind(index, v.get<std::string>());
      return {};
    case Kind::Integer:
      if (!v.is_number_integer()) break;
      st.bind(index, v.get<std::int64_t>());
      return {};
    case Kind::Real:
      if (!v.is_number()) break;
      st.bind(index, v.get<double>());
      return {};
  }
  static constexpr const char* kKindNames[] = {"a string", "an integer", "a number"};
  return fail(Stage::Store,
              fmt::format("add_llm_call: '{}' must be {}, got {}", key,
                          kKindNames[static_cast<int>(kind)], v.dump()),
              0, path);
}

}  // namespace

Expected<long long> Store::add_llm_call(long long run_id, std::optional<long long> candidate_id,
                                        const nlohmann::json& call) {
  if (!call.is_object())
    return fail(Stage::Store, "add_llm_call: the call must be a JSON object", 0, path_);
  return guard(path_, "add_llm_call", [&]() -> Expected<long long> {
    SQLite::Statement st(*db_,
                         "INSERT INTO llm_calls (run_id, candidate_id, model, endpoint, attempt, "
                         "status, http_status, prompt_tokens, completion_tokens, cost_usd, "
                         "latency_s, request, reply, error) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    bind_int(st, 1, run_id);
    bind_opt(st, 2, candidate_id);
    struct Column {
      const char* key;
      Kind kind;
    };
    static constexpr Column kColumns[] = {
        {"model", Kind::Text},          {"endpoint", Kind::Text},        {"attempt", Kind::Integer},
        {"status", Kind::Text},         {"http_status", Kind::Integer},  {"prompt_tokens", Kind::Integer},
        {"completion_tokens", Kind::Integer}, {"cost_usd", Kind::Real},  {"latency_s", Kind::Real}};
    int index = 3;
    for (const Column& c : kColumns) TDX_STORE_TRY_VOID(bind_key(st, index++, call, c.key, c.kind, path_));
    // request: any JSON (the chat-completions body), stored as JSON text.
    bind_json(st, index++, call.value("request", nlohmann::json()));
    // reply: the raw reply text; a JSON reply is stored as its JSON text.
    const nlohmann::json reply = call.value("reply", nlohmann::json());
    if (reply.is_string()) st.bind(index++, reply.get<std::string>());
    else bind_json(st, index++, reply);
    TDX_STORE_TRY_VOID(bind_key(st, index, call, "error", Kind::Text, path_));
    st.exec();
    return static_cast<long long>(db_->getLastInsertRowid());
  });
}

Expected<LlmUsage> Store::llm_usage(long long run_id) {
  return guard(path_, "llm_usage", [&]() -> Expected<LlmUsage> {
    SQLite::Statement st(*db_,
                         "SELECT count(*), count(*) FILTER (WHERE status IS NOT 'ok'), "
                         "total(prompt_tokens), total(completion_tokens), total(cost_usd) "
                         "FROM llm_calls WHERE run_id = ?");
    bind_int(st, 1, run_id);
    st.executeStep();
    return LlmUsage{st.getColumn(0).getInt64(), st.getColumn(1).getInt64(),
                    static_cast<long long>(st.getColumn(2).getDouble()),
                    static_cast<long long>(st.getColumn(3).getDouble()), st.getColumn(4).getDouble()};
  });
}

}  // namespace tdx
