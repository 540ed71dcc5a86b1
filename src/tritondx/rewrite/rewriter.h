// A rewriter turns a diagnosed kernel into candidate sources. Two implementations: the
// built-in recipes (offline, deterministic) and an LLM behind an OpenAI-compatible endpoint.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/ladder/context.h"
#include "tritondx/ladder/finding.h"
#include "tritondx/rewrite/candidate.h"

namespace tdx {

struct RewriteRequest {
  const KernelContext& ctx;              // the kernel being optimized (its task holds the source)
  const std::vector<Finding>& findings;  // its diagnosis, best first
  std::string constraints;               // task constraints in prose (tolerance, signature to keep)
};

// One attempt to rewrite: a candidate, or the reason there is none (kept for the report).
struct RewriteAttempt {
  std::string rewriter;  // "recipe" | "llm"
  std::string recipe;    // recipe id or "llm"
  std::vector<std::string> targets;
  Expected<Candidate> candidate;
  std::vector<int> target_lines;  // the line of each target finding (empty for the LLM's)
};

class Rewriter {
 public:
  virtual ~Rewriter() = default;
  virtual std::string_view name() const = 0;
  virtual std::vector<RewriteAttempt> propose(const RewriteRequest& request) = 0;
};

}  // namespace tdx
