// The LLM rewriter: one chat request per attempt (prompt.h), the kernel taken out of the
// reply (reply_code.h) and spliced into the original task (splice.h). Every HTTP attempt is
// kept as a call record for the store, tied to the RewriteAttempt it belongs to.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/rewrite/llm/chat_client.h"
#include "tritondx/rewrite/llm/llm_config.h"
#include "tritondx/rewrite/llm/prompt.h"
#include "tritondx/rewrite/rewriter.h"

namespace tdx {

struct LlmRewriterOptions {
  int attempts = 1;             // chat requests per propose(), each a RewriteAttempt
  bool check_candidate = true;  // load the spliced candidate through the bridge before returning it
  PromptOptions prompt;
};

// A call record and the index (in the vector propose() returned) of the attempt it served.
struct LlmCallRecord {
  size_t attempt_index = 0;
  nlohmann::json call;  // see ChatClient::complete
};

class LlmRewriter : public Rewriter {
 public:
  LlmRewriter(LlmConfig config, const Bridge& bridge, LlmRewriterOptions options = {});

  std::string_view name() const override { return "llm"; }
  std::vector<RewriteAttempt> propose(const RewriteRequest& request) override;

  // The call records of the last propose() (store them with Store::add_llm_call).
  const std::vector<LlmCallRecord>& last_calls() const { return last_calls_; }
  // Token and cost totals over every call this rewriter made.
  const LlmTotals& totals() const { return client_.totals(); }
  ChatClient& client() { return client_; }

  // The candidate from one reply's text (public for tests and replays of stored replies).
  Expected<Candidate> candidate_from_reply(const RewriteRequest& request, const std::string& reply_text);

 private:
  ChatClient client_;
  const Bridge& bridge_;
  LlmRewriterOptions options_;
  std::vector<LlmCallRecord> last_calls_;
};

}  // namespace tdx
