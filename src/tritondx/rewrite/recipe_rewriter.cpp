#include "tritondx/rewrite/recipe_rewriter.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <set>

#include <fmt/format.h>

namespace tdx {

Expected<Candidate> apply_recipe(const Recipe& recipe, const KernelContext& ctx, const Finding& finding,
                                 const RewriteProposal& proposal) {
  if (!ctx.task) return fail(Stage::Rewrite, "no task source to rewrite");
  RecipeInput in{ctx, finding, proposal};
  Expected<std::vector<TextEdit>> edits = fail(Stage::Rewrite, "not run");
  try {
    edits = recipe.edits(in);
  } catch (const std::exception& e) {
    return fail(Stage::Rewrite, fmt::format("recipe {} threw: {}", recipe.id(), e.what()), finding.loc.line);
  }
  if (!edits) return std::unexpected(edits.error());
  if (edits->empty()) return fail(Stage::Rewrite, fmt::format("recipe {} changed nothing", recipe.id()), finding.loc.line);
  std::string after = TDX_TRY(apply_edits(ctx.task->source, *edits));
  if (after == ctx.task->source)
    return fail(Stage::Rewrite, fmt::format("recipe {} changed nothing", recipe.id()), finding.loc.line);
  Candidate c;
  c.source = std::move(after);
  c.rewriter = "recipe";
  c.recipe = std::string(recipe.id());
  c.kernel = finding.kernel;
  c.targets = {finding.rule_id};
  c.target_loc = finding.loc;
  c.description = proposal.description;
  c.params = proposal.params;
  c.diff = unified_diff(ctx.task->source, c.source, std::filesystem::path(ctx.task->path).filename().string());
  return c;
}

std::vector<RewriteAttempt> RecipeRewriter::propose(const RewriteRequest& request) {
  std::vector<RewriteAttempt> out;
  std::set<std::string> seen_sources;
  for (const auto& finding : request.findings) {
    for (const auto& proposal : finding.proposals) {
      const Recipe* recipe = registry_.find(proposal.recipe);
      if (!recipe) continue;  // a proposal no built-in recipe implements (an LLM may)
      auto candidate = apply_recipe(*recipe, request.ctx, finding, proposal);
      if (candidate && !seen_sources.insert(candidate->source).second) {
        // Two findings asking for the same change: keep one candidate, naming both targets.
        for (auto& a : out)
          if (a.candidate && a.candidate->source == candidate->source) {
            if (std::find(a.targets.begin(), a.targets.end(), finding.rule_id) == a.targets.end()) {
              a.targets.push_back(finding.rule_id);
              a.target_lines.push_back(finding.loc.line);
              a.candidate->targets.push_back(finding.rule_id);
            }
          }
        continue;
      }
      out.push_back({"recipe", std::string(proposal.recipe), {finding.rule_id}, std::move(candidate), {finding.loc.line}});
    }
  }
  return out;
}

}  // namespace tdx
