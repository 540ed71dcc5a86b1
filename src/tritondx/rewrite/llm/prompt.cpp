#include "tritondx/rewrite/llm/prompt.h"
#include "tritondx/core/text.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>

namespace tdx {

namespace {

// The longest run of backticks in `text` + 1 (at least 3), so a fence never closes early.
std::string fence_for(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string file_name(const KernelContext& ctx) {
  return ctx.task ? std::filesystem::path(ctx.task->path).filename().string() : std::string("task.py");
}

// "def launch(x):" as written in the task (first line of the launch function).
std::string launch_signature(const KernelContext& ctx) {
  if (!ctx.task) return {};
  for (size_t i = 0; i < ctx.task->lines.size(); ++i) {
    const std::string& l = ctx.task->lines[i];
    if (l.rfind("def launch(", 0) == 0) return trim_copy(l);
  }
  return {};
}

std::string tolerance_text(const KernelContext& ctx) {
  const auto& t = ctx.tolerance.is_object() ? ctx.tolerance : (ctx.task ? ctx.task->tolerance : nlohmann::json());
  if (!t.is_object() || t.empty()) return "the default tolerance for the output dtype";
  std::vector<std::string> parts;
  for (const auto& [k, v] : t.items()) parts.push_back(fmt::format("{}={}", k, v.dump()));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// The diagnosis section of the user message, as much of it as `options.evidence` allows.
std::string diagnosis_section(const RewriteRequest& request, const PromptOptions& options) {
  const KernelContext& ctx = request.ctx;
  std::string out;
  switch (options.evidence) {
    case PromptEvidence::None:
      return {};
    case PromptEvidence::Symptom: {
      out += "## What was measured\n\n";
      size_t shown = 0;
      for (const auto& f : request.findings)
        if (f.level == Level::L1 && !f.symptom.empty() && shown < options.max_findings) {
          out += "- " + f.symptom + "\n";
          ++shown;
        }
      if (shown == 0) out += "Nothing was measured: no GPU was available.\n";
      return out + "\n";
    }
    case PromptEvidence::Full:
      break;
  }
  out += "## Diagnosis (best first)\n\n";
  if (request.findings.empty()) out += "No specific finding; look for the usual performance problems.\n\n";
  for (size_t i = 0; i < request.findings.size() && i < options.max_findings; ++i)
    out += fmt::format("### {}. {}\n", i + 1, format_finding_for_prompt(request.findings[i], ctx, options.max_evidence));
  if (request.findings.size() > options.max_findings)
    out += fmt::format("({} further findings of lower rank are not shown.)\n\n",
                       request.findings.size() - options.max_findings);
  return out;
}

}  // namespace

std::string_view prompt_evidence_name(PromptEvidence evidence) {
  switch (evidence) {
    case PromptEvidence::Full: return "full";
    case PromptEvidence::Symptom: return "symptom";
    case PromptEvidence::None: return "none";
  }
  return "full";
}

std::optional<PromptEvidence> prompt_evidence_from_name(std::string_view name) {
  for (auto e : {PromptEvidence::Full, PromptEvidence::Symptom, PromptEvidence::None})
    if (prompt_evidence_name(e) == name) return e;
  return std::nullopt;
}

std::string format_finding_for_prompt(const Finding& f, const KernelContext& ctx, size_t max_evidence) {
  std::string out;
  std::string head = fmt::format("{} ({}", f.rule_id, level_name(f.level));
  if (!f.kernel.empty()) head += fmt::format(", kernel {}", f.kernel);
  if (f.loc.known()) head += fmt::format(", line {}", f.loc.line);
  head += fmt::format(", confidence {:.2f}", f.confidence);
  if (f.estimated_gain) head += fmt::format(", estimated gain {:.2f}x", *f.estimated_gain);
  out += head + ")\n";
  if (f.loc.known()) {
    std::string line = trim_copy(ctx.source_line(f.loc.line));
    if (!line.empty()) out += fmt::format("Line {}: `{}`\n", f.loc.line, line);
  }
  if (!f.symptom.empty()) out += "Symptom: " + f.symptom + "\n";
  if (!f.evidence.empty()) {
    out += "Evidence chain:\n";
    for (size_t i = 0; i < f.evidence.size() && i < max_evidence; ++i) {
      const auto& e = f.evidence[i];
      std::string where(stage_name(e.stage));
      if (e.stage == Stage::Source) {
        if (e.loc.known()) where += fmt::format(" line {}", e.loc.line);
      } else {
        if (e.ir_line > 0) where += fmt::format(" line {}", e.ir_line);
        if (e.loc.known()) where += fmt::format(" (source line {})", e.loc.line);
      }
      std::string item = "- " + where;
      if (!e.quote.empty()) item += ": `" + trim_copy(e.quote) + "`";
      if (!e.note.empty()) item += " -- " + e.note;
      out += item + "\n";
    }
    if (f.evidence.size() > max_evidence)
      out += fmt::format("- ... {} more links\n", f.evidence.size() - max_evidence);
  }
  if (!f.cause.empty()) out += "Cause: " + f.cause + "\n";
  if (!f.proposals.empty()) {
    out += "Proposed changes (hints; a built-in recipe may implement them):\n";
    for (const auto& p : f.proposals) {
      std::string item = fmt::format("- {}: {}", p.recipe, p.description);
      if (!p.params.is_null() && !p.params.empty()) item += " " + p.params.dump();
      out += item + "\n";
    }
  }
  return out;
}

std::string format_constraints_for_prompt(const RewriteRequest& request) {
  const KernelContext& ctx = request.ctx;
  std::string sig = launch_signature(ctx);
  std::string out;
  out += fmt::format("- Keep {} with the same parameters; it must still launch the Triton kernel(s) and "
                     "return the same output(s) (shape, dtype, layout).\n",
                     sig.empty() ? std::string("the `launch` function") : "`" + sig + "`");
  std::string kernel = ctx.kernel_name();
  out += fmt::format("- Keep `{}` a @triton.jit kernel doing the same job. You may change its body, parameters, "
                     "block sizes, num_warps/num_stages, add @triton.autotune, and add helper @triton.jit "
                     "functions.\n",
                     kernel.empty() ? std::string("the kernel") : kernel);
  out += "- The work stays in Triton: launch must not compute the result with PyTorch operations or call "
         "reference.\n";
  out += "- Do not change reference, make_inputs, bytes_moved, flops, TOLERANCE or MUTATES: leave them out of your "
         "answer; the original ones are kept.\n";
  out += fmt::format("- The output must match reference within {} on fresh random inputs of the sizes "
                     "make_inputs gives; NaN never passes.\n",
                     tolerance_text(ctx));
  for (const auto& line : split_lines(request.constraints)) {
    std::string t = trim_copy(line);
    if (t.empty()) continue;
    out += (t.rfind("- ", 0) == 0 ? t : "- " + t) + "\n";
  }
  return out;
}

std::vector<ChatMessage> build_rewrite_prompt(const RewriteRequest& request, const PromptOptions& options) {
  const KernelContext& ctx = request.ctx;
  const std::string source = ctx.task ? ctx.task->source : std::string();
  const std::string name = file_name(ctx);
  const std::string fence = fence_for(source);

  const char* about_diagnosis =
      options.evidence == PromptEvidence::Full
          ? " The diagnosis you are given comes from a compiler-level analysis (source, Triton IR, PTX, SASS); "
            "trust its evidence."
          : "";
  std::string system = fmt::format(
      "You are an expert in writing fast Triton GPU kernels for the {}. You rewrite a kernel so that it "
      "runs faster and computes the same result.{} Answer with one sentence saying what "
      "you changed, then exactly one ```python fenced code block holding the complete code of every "
      "@triton.jit function you changed or added and the complete launch function, with the imports they "
      "need. Never elide code with \"...\" and do not repeat reference, make_inputs or TOLERANCE.",
      options.target, about_diagnosis);

  std::string user;
  std::string kernel = ctx.kernel_name();
  user += fmt::format("# Task\n\nMake the Triton kernel `{}` in `{}` faster on the {} without changing what it "
                      "computes.\n\n",
                      kernel.empty() ? std::string("(the kernel)") : kernel, name, options.target);
  user += fmt::format("## Source of {}\n\n{}python\n{}{}{}\n\n", name, fence, source,
                      source.empty() || source.back() == '\n' ? "" : "\n", fence);

  user += diagnosis_section(request, options);

  user += "## Constraints\n\n" + format_constraints_for_prompt(request) + "\n";

  user += "## Answer format\n\n"
          "One sentence on what you changed, then one ```python fenced block with the complete code of every "
          "@triton.jit function you changed or added and the `launch` function (same name and parameters), "
          "plus the imports they need. Functions you leave out stay as they are in the source above.\n";
  return {{"system", std::move(system)}, {"user", std::move(user)}};
}

}  // namespace tdx
