// A client for an OpenAI-compatible chat-completions endpoint: one request, retried with
// exponential backoff on 429, 5xx, timeouts and lost connections, every attempt recorded
// (model, status, tokens, cost, latency, request, reply) for the store.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"
#include "tritondx/rewrite/llm/llm_config.h"

namespace tdx {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct ChatReply {
  std::string content;        // choices[0].message.content
  std::string finish_reason;  // "stop", ...
  std::string model;          // the model the server says answered
  long long prompt_tokens = 0;
  long long completion_tokens = 0;
  double cost_usd = 0;
  int attempts = 0;           // HTTP attempts it took
};

// The outcome of one attempt, as a call record's "status".
enum class CallStatus { Ok, HttpError, Timeout, Connection, Malformed, Truncated };
std::string_view call_status_name(CallStatus status);  // "ok", "http-error", ...

// Token and cost totals over call records.
struct LlmTotals {
  long long calls = 0;
  long long failed_calls = 0;
  long long prompt_tokens = 0;
  long long completion_tokens = 0;
  double cost_usd = 0;

  void add(const nlohmann::json& call_record);
};

class ChatClient {
 public:
  using Sleeper = std::function<void(std::chrono::duration<double>)>;

  explicit ChatClient(LlmConfig config);

  // Sends the conversation; retries what may succeed on a later try. Each attempt appends a
  // call record to calls() (keys: model, endpoint, attempt, status, http_status,
  // prompt_tokens, completion_tokens, cost_usd, latency_s, request, reply, error; plus
  // finish_reason and wait_s, the pause before the next attempt). Errors are Stage::Llm.
  Expected<ChatReply> complete(const std::vector<ChatMessage>& messages);

  // Call records since the last take_calls() (the caller stores them).
  std::vector<nlohmann::json> take_calls();
  const std::vector<nlohmann::json>& calls() const { return calls_; }
  // Every call this client has made.
  const LlmTotals& totals() const { return totals_; }

  // The pause between attempts (tests record instead of sleeping).
  void set_sleeper(Sleeper sleeper) { sleep_ = std::move(sleeper); }
  const LlmConfig& config() const { return config_; }

  // The request body complete() sends.
  nlohmann::json request_body(const std::vector<ChatMessage>& messages) const;

 private:
  LlmConfig config_;
  Sleeper sleep_;
  std::vector<nlohmann::json> calls_;
  LlmTotals totals_;
};

// Parses a 200 reply body: the reply, or why it is unusable, with the record status to use
// (Malformed, or Truncated for a body cut short or a finish_reason of "length").
struct ParsedReply {
  CallStatus status = CallStatus::Ok;
  std::string error;
  ChatReply reply;
};
ParsedReply parse_chat_reply(const std::string& body);

}  // namespace tdx
