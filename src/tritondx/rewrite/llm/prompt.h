// The chat the LLM rewriter sends: a system message (role, answer format) and a user message
// with the task source, the findings with their evidence chains, the constraints and the
// recipe proposals as hints.
#pragma once

#include <string>
#include <vector>

#include "tritondx/rewrite/llm/chat_client.h"
#include "tritondx/rewrite/rewriter.h"

namespace tdx {

struct PromptOptions {
  size_t max_findings = 12;  // the best ones; the rest are counted
  size_t max_evidence = 8;   // links per finding
  std::string target = "NVIDIA H200 (sm_90) with Triton 3.6";
};

std::vector<ChatMessage> build_rewrite_prompt(const RewriteRequest& request, const PromptOptions& options = {});

// Pieces of the user message, for tests and reports.
std::string format_finding_for_prompt(const Finding& finding, const KernelContext& ctx, size_t max_evidence);
std::string format_constraints_for_prompt(const RewriteRequest& request);

}  // namespace tdx
