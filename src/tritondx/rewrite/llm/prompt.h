// The chat the LLM rewriter sends: a system message (role, answer format) and a user message
// with the task source, the findings with their evidence chains, the constraints and the
// recipe proposals as hints.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/rewrite/llm/chat_client.h"
#include "tritondx/rewrite/rewriter.h"

namespace tdx {

// How much of the diagnosis the prompt carries: the arms of the evidence ablation (docs/llm.md).
enum class PromptEvidence {
  Full,     // every finding: rule, level, line, symptom, evidence chain, compiler cause, proposals
  Symptom,  // what surface-signal agents send: the kernel-level symptoms (the L1 findings' symptom
            // lines: time, roofline, profile), nothing from the source, IR or compiler analysis
  None,     // no diagnosis at all: the source and the constraints
};
std::string_view prompt_evidence_name(PromptEvidence evidence);            // "full", "symptom", "none"
std::optional<PromptEvidence> prompt_evidence_from_name(std::string_view name);

struct PromptOptions {
  size_t max_findings = 12;  // the best ones; the rest are counted
  size_t max_evidence = 8;   // links per finding
  std::string target = "NVIDIA H200 (sm_90) with Triton 3.6";
  PromptEvidence evidence = PromptEvidence::Full;
};

std::vector<ChatMessage> build_rewrite_prompt(const RewriteRequest& request, const PromptOptions& options = {});

// Pieces of the user message, for tests and reports.
std::string format_finding_for_prompt(const Finding& finding, const KernelContext& ctx, size_t max_evidence);
std::string format_constraints_for_prompt(const RewriteRequest& request);

}  // namespace tdx
