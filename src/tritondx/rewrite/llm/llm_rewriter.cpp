#include "tritondx/rewrite/llm/llm_rewriter.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "tritondx/rewrite/llm/reply_code.h"
#include "tritondx/rewrite/llm/splice.h"
#include "tritondx/rewrite/source_edit.h"

namespace tdx {

namespace {

std::vector<std::string> target_rules(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings)
    if (std::find(out.begin(), out.end(), f.rule_id) == out.end()) out.push_back(f.rule_id);
  return out;
}

}  // namespace

LlmRewriter::LlmRewriter(LlmConfig config, const Bridge& bridge, LlmRewriterOptions options)
    : client_(std::move(config)), bridge_(bridge), options_(std::move(options)) {}

Expected<Candidate> LlmRewriter::candidate_from_reply(const RewriteRequest& request, const std::string& reply_text) {
  const KernelContext& ctx = request.ctx;
  if (!ctx.task) return fail(Stage::Rewrite, "no task source to rewrite");
  const Task& task = *ctx.task;

  std::optional<PyModule> loaded_ast;
  if (!ctx.ast) {
    // From the source in memory: it may be a candidate that was never written to task.path.
    auto j = load_source_through_bridge(bridge_, task.source, "original");
    if (!j) return std::unexpected(j.error().diagnostic);
    loaded_ast = PyModule::from_json(j->value("module", nlohmann::json::object()));
  }
  const PyModule& ast = ctx.ast ? *ctx.ast : *loaded_ast;

  std::string code = TDX_TRY(extract_python_code(reply_text));
  std::string prelude;  // the original's imports, so a reply may leave them out
  for (const PyNode* n : ast.root().children_in("body"))
    if (n->type == "Import" || n->type == "ImportFrom")
      for (int l = n->line; l <= n->end_line; ++l) prelude += std::string(task.line(l)) + "\n";
  ReplyCode reply = TDX_TRY(parse_reply_code(bridge_, code, prelude));
  Splice splice = TDX_TRY(splice_reply(task, ast, reply));
  const std::string file = std::filesystem::path(task.path).filename().string();

  if (options_.check_candidate) {
    auto loaded = load_source_through_bridge(bridge_, splice.source, "candidate");
    if (!loaded)
      return fail(Stage::Llm, fmt::format("the candidate built from the reply does not load as a task ({}): {}",
                                          loaded.error().kind, loaded.error().diagnostic.message),
                  loaded.error().diagnostic.line);
  }

  Candidate c;
  c.source = splice.source;
  c.rewriter = "llm";
  c.recipe = "llm";
  c.kernel = ctx.kernel_name();
  c.targets = target_rules(request.findings);
  if (!request.findings.empty()) c.target_loc = request.findings.front().loc;
  c.description = reply_summary(reply_text);
  if (c.description.empty()) c.description = fmt::format("LLM rewrite of {}", c.kernel.empty() ? file : c.kernel);
  c.params = splice.to_json();
  c.params["model"] = client_.config().model;
  c.diff = unified_diff(task.source, c.source, file);
  return c;
}

std::vector<RewriteAttempt> LlmRewriter::propose(const RewriteRequest& request) {
  last_calls_.clear();
  std::vector<RewriteAttempt> out;
  const auto messages = build_rewrite_prompt(request, options_.prompt);
  const auto targets = target_rules(request.findings);
  std::set<std::string> seen;
  for (int i = 0; i < std::max(1, options_.attempts); ++i) {
    auto reply = client_.complete(messages);
    for (auto& call : client_.take_calls()) {
      call["evidence"] = prompt_evidence_name(options_.prompt.evidence);
      last_calls_.push_back({out.size(), std::move(call)});
    }
    Expected<Candidate> candidate = fail(Stage::Llm, "not run");
    if (!reply) {
      candidate = std::unexpected(reply.error());
    } else {
      candidate = candidate_from_reply(request, reply->content);
      if (candidate) {
        candidate->params["attempt"] = i + 1;
        candidate->params["finish_reason"] = reply->finish_reason;
        candidate->params["prompt_tokens"] = reply->prompt_tokens;
        candidate->params["completion_tokens"] = reply->completion_tokens;
        candidate->params["cost_usd"] = reply->cost_usd;
        candidate->params["evidence"] = prompt_evidence_name(options_.prompt.evidence);
        if (!seen.insert(candidate->source).second)
          candidate = fail(Stage::Llm, fmt::format("attempt {} returned the same kernel as an earlier attempt", i + 1));
      }
    }
    out.push_back({"llm", "llm", targets, std::move(candidate), {}});
  }
  return out;
}

}  // namespace tdx
