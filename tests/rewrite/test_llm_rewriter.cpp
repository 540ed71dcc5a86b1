// The LLM rewriter end to end against the scripted server and the real Python bridge: the
// prompt it sends (source, findings with evidence, constraints, proposals), the candidate it
// splices into examples/softmax.py, and the replies it rejects with a reason.
// Longer than 500 lines because every reply shape the rewriter must accept or reject is one test
// over the same scripted server and bridge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "../cli_test_util.h"
#include "tritondx/bridge/bridge.h"
#include "tritondx/rewrite/llm/fake_chat_server.h"
#include "tritondx/rewrite/llm/llm_rewriter.h"
#include "tritondx/rewrite/llm/prompt.h"
#include "tritondx/rewrite/llm/reply_code.h"
#include "tritondx/task/task.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() { return cli_test::test_dir("tritondx-llm-tests"); }

const Bridge& bridge() {
  static Bridge b(BridgeConfig::from_environment());
  return b;
}

// examples/softmax.py as a rule would see it.
struct SoftmaxTask {
  Task task;
  PyModule ast;
  KernelContext ctx;
  std::vector<Finding> findings;

  SoftmaxTask() {
    auto reply = bridge().call("ast", nlohmann::json{{"task", (fs::path(TRITONDX_SOURCE_DIR) / "examples/softmax.py").string()}});
    if (!reply) throw std::runtime_error(reply.error().diagnostic.to_string());
    task = task_from_json(*reply);
    ast = PyModule::from_json((*reply)["module"]);
    ctx.task = &task;
    ctx.ast = &ast;
    ctx.function = ast.function("softmax_kernel");
    ctx.tolerance = task.tolerance;

    Finding multi;
    multi.rule_id = "l0-multi-pass-reduction";
    multi.level = Level::L0;
    multi.kernel = "softmax_kernel";
    multi.loc = {task.path, 19, 5};
    multi.symptom = "three passes over each row read it from global memory three times";
    multi.evidence.push_back(ctx.source_evidence(19, "first pass: the row maximum"));
    multi.evidence.push_back(ctx.source_evidence(25, "second pass: the sum of exponentials"));
    EvidenceLink ptx;
    ptx.stage = Stage::Ptx;
    ptx.loc = {task.path, 21, 0};
    ptx.ir_line = 412;
    ptx.quote = "ld.global.b32 {%r17}, [%rd9];";
    ptx.note = "scalar 4-byte loads in every pass";
    multi.evidence.push_back(ptx);
    multi.cause = "the row is re-read per pass instead of being kept in registers";
    multi.confidence = 0.85;
    multi.estimated_gain = 2.6;
    multi.proposals.push_back({kAdvice, "keep the whole row in one block and reduce it once",
                               nlohmann::json{{"block", 4096}}});
    Finding exp;
    exp.rule_id = "l0-exp-not-exp2";
    exp.level = Level::L0;
    exp.kernel = "softmax_kernel";
    exp.loc = {task.path, 28, 0};
    exp.symptom = "tl.exp lowers to ex2.approx with an extra multiply";
    exp.confidence = 0.4;
    exp.proposals.push_back({"exp-to-exp2", "use tl.exp2 with a log2(e) factor", nullptr});
    findings = {multi, exp};
  }

  RewriteRequest request() const { return {ctx, findings, "Keep the output dtype fp32."}; }
};

const SoftmaxTask& softmax() {
  static SoftmaxTask t;
  return t;
}

// A one-pass rewrite of softmax_kernel with a new helper, an extra import and a reference
// that must never make it into the candidate.
const std::string kGoodReply = R"(Single pass: the whole row stays in registers and exp becomes exp2.

```python
import math

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _row_max(x):
    return tl.max(x, axis=0)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp2((x - _row_max(x)) * LOG2E)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=triton.next_power_of_2(cols), num_warps=8)
    return out


def reference(x):
    return x * 0  # an LLM must never change the reference
```

This reads each row once.
)";

LlmConfig config_for(const FakeChatServer& server) {
  LlmConfig c;
  c.base_url = server.base_url();
  c.model = "test-model";
  c.timeout_s = 10;
  c.max_retries = 1;
  c.price_prompt_per_mtok = 1;
  c.price_completion_per_mtok = 4;
  return c;
}

struct Rewrite {
  FakeChatServer server;
  std::unique_ptr<LlmRewriter> rewriter;
  std::vector<RewriteAttempt> attempts;

  explicit Rewrite(std::vector<FakeReply> script, LlmRewriterOptions options = {}) {
    for (auto& r : script) server.push(std::move(r));
    rewriter = std::make_unique<LlmRewriter>(config_for(server), bridge(), options);
    rewriter->client().set_sleeper([](std::chrono::duration<double>) {});
    attempts = rewriter->propose(softmax().request());
  }
  std::string error(size_t i = 0) const {
    return attempts.at(i).candidate ? std::string("(a candidate)") : attempts.at(i).candidate.error().message;
  }
};

std::string original_function(const std::string& name) {
  const auto& t = softmax();
  const PyNode* fn = t.ast.function(name);
  std::string out;
  for (int i = fn->line; i <= fn->end_line; ++i) out += t.task.lines[i - 1] + "\n";
  return out;
}

// ---- the prompt ----

TEST(LlmPromptTest, CarriesSourceFindingsEvidenceConstraintsAndProposals) {
  auto messages = build_rewrite_prompt(softmax().request());
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_NE(messages[0].content.find("```python"), std::string::npos);
  const std::string& user = messages[1].content;
  EXPECT_NE(user.find(softmax().task.source), std::string::npos) << "the whole task file";
  for (const char* s : {"softmax_kernel", "l0-multi-pass-reduction", "L0", "line 19", "confidence 0.85",
                        "estimated gain 2.60x", "three passes over each row", "ld.global.b32 {%r17}, [%rd9];",
                        "ptx line 412", "scalar 4-byte loads", "re-read per pass", "- advice: keep the whole row in one block",
                        "{\"block\":4096}", "l0-exp-not-exp2", "exp-to-exp2", "`def launch(x):`",
                        "rtol=1e-05", "atol=1e-06", "reference", "make_inputs", "Keep the output dtype fp32."})
    EXPECT_NE(user.find(s), std::string::npos) << s;
  EXPECT_NE(user.find("- source line 25: `for start in range(0, n_cols, BLOCK):` -- second pass"), std::string::npos);
  EXPECT_NE(user.find("- ptx line 412 (source line 21): `ld.global.b32"), std::string::npos);
  EXPECT_LT(user.find("l0-multi-pass-reduction"), user.find("l0-exp-not-exp2")) << "best finding first";
}

TEST(LlmPromptTest, LimitsFindingsAndEvidence) {
  PromptOptions options;
  options.max_findings = 1;
  options.max_evidence = 1;
  auto user = build_rewrite_prompt(softmax().request(), options)[1].content;
  EXPECT_EQ(user.find("l0-exp-not-exp2"), std::string::npos);
  EXPECT_NE(user.find("1 further findings"), std::string::npos);
  EXPECT_NE(user.find("2 more links"), std::string::npos);
}

// The arms of the evidence ablation: the symptom arm keeps the measured kernel-level symptoms
// (L1) and drops rules, lines, evidence, causes and proposals; the none arm has no diagnosis.
TEST(LlmPromptTest, EvidenceArmsCarryLessOfTheDiagnosis) {
  std::vector<Finding> findings = softmax().findings;
  Finding roofline;
  roofline.rule_id = "l1-roofline-gap";
  roofline.level = Level::L1;
  roofline.kernel = "softmax_kernel";
  roofline.symptom = "runs at 31% of its memory roofline: 0.412 ms measured, 0.128 ms floor";
  findings.push_back(roofline);
  RewriteRequest request{softmax().ctx, findings, "Keep the output dtype fp32."};

  PromptOptions symptom;
  symptom.evidence = PromptEvidence::Symptom;
  auto messages = build_rewrite_prompt(request, symptom);
  const std::string& user = messages[1].content;
  EXPECT_NE(user.find("## What was measured\n\n- runs at 31% of its memory roofline"), std::string::npos) << user;
  for (const char* gone : {"## Diagnosis", "l0-multi-pass-reduction", "ld.global.b32",
                           "re-read per pass", "keep the whole row", "l1-roofline-gap", "exp-to-exp2"})
    EXPECT_EQ(user.find(gone), std::string::npos) << gone;
  EXPECT_EQ(messages[0].content.find("compiler-level analysis"), std::string::npos);
  EXPECT_NE(user.find(softmax().task.source), std::string::npos);
  EXPECT_NE(user.find("Keep the output dtype fp32."), std::string::npos) << "the constraints stay";

  PromptOptions none;
  none.evidence = PromptEvidence::None;
  const std::string bare = build_rewrite_prompt(request, none)[1].content;
  EXPECT_EQ(bare.find("## What was measured"), std::string::npos);
  EXPECT_EQ(bare.find("## Diagnosis"), std::string::npos);
  EXPECT_EQ(bare.find("31% of its memory roofline"), std::string::npos);
  EXPECT_NE(bare.find("## Constraints"), std::string::npos);

  RewriteRequest unmeasured = softmax().request();
  EXPECT_NE(build_rewrite_prompt(unmeasured, symptom)[1].content.find("Nothing was measured: no GPU was available."),
            std::string::npos);
  EXPECT_EQ(prompt_evidence_from_name("symptom"), PromptEvidence::Symptom);
  EXPECT_EQ(prompt_evidence_from_name("surface"), std::nullopt);
}

// ---- code blocks ----

TEST(LlmReplyCodeTest, PicksPythonBlocks) {
  auto code = extract_python_code("Here:\n```bash\nls\n```\n```python\nx = 1\n```\nand\n~~~py\ny = 2\n~~~\n");
  ASSERT_TRUE(code.has_value()) << code.error().message;
  EXPECT_EQ(*code, "x = 1\n\n\ny = 2\n");
  EXPECT_EQ(*extract_python_code("```\n  a = 1\n  b = 2\n```"), "a = 1\nb = 2\n") << "untagged, dedented";
  EXPECT_EQ(extract_python_code("just prose").error().message, "no code block in the reply");
  EXPECT_NE(extract_python_code("```diff\n-a\n+b\n```").error().message.find("no Python code block in the reply (found: diff)"),
            std::string::npos);
  EXPECT_NE(extract_python_code("```python\nx = 1\n").error().message.find("never closed"), std::string::npos);
  EXPECT_EQ(reply_summary(kGoodReply), "Single pass: the whole row stays in registers and exp becomes exp2.");
}

// ---- the rewriter ----

TEST(LlmRewriterTest, GoodReplySplicesIntoTheTask) {
  Rewrite r({FakeReply::chat(kGoodReply, "stop", 3000, 700)});
  ASSERT_EQ(r.attempts.size(), 1u);
  const auto& a = r.attempts[0];
  EXPECT_EQ(a.rewriter, "llm");
  EXPECT_EQ(a.recipe, "llm");
  EXPECT_EQ(a.targets, (std::vector<std::string>{"l0-multi-pass-reduction", "l0-exp-not-exp2"}));
  ASSERT_TRUE(a.candidate.has_value()) << a.candidate.error().to_string();
  const Candidate& c = *a.candidate;
  EXPECT_EQ(c.rewriter, "llm");
  EXPECT_EQ(c.recipe, "llm");
  EXPECT_EQ(c.kernel, "softmax_kernel");
  EXPECT_EQ(c.targets, a.targets);
  EXPECT_EQ(c.target_loc.line, 19);
  EXPECT_EQ(c.description, "Single pass: the whole row stays in registers and exp becomes exp2.");

  const std::string& s = c.source;
  // The reply's kernel and launch replace the original's, in place.
  EXPECT_NE(s.find("num = tl.exp2((x - _row_max(x)) * LOG2E)"), std::string::npos);
  EXPECT_EQ(s.find("denom += tl.sum(tl.exp(x - row_max), axis=0)"), std::string::npos);
  EXPECT_NE(s.find("BLOCK=triton.next_power_of_2(cols), num_warps=8"), std::string::npos);
  EXPECT_EQ(s.find("BLOCK=256"), std::string::npos);
  // The new helper goes before launch, after the kernel; the new import and constant after the imports.
  EXPECT_LT(s.find("def softmax_kernel"), s.find("def _row_max"));
  EXPECT_LT(s.find("def _row_max"), s.find("def launch"));
  EXPECT_LT(s.find("import triton.language as tl\nimport math\n"), s.find("LOG2E = "));
  EXPECT_LT(s.find("LOG2E = "), s.find("@triton.jit"));
  // The original's docstring, reference, make_inputs, bytes_moved, flops and TOLERANCE stay.
  EXPECT_EQ(s.rfind("\"\"\"Row softmax", 0), 0u);
  for (const char* name : {"reference", "make_inputs", "bytes_moved", "flops"})
    EXPECT_NE(s.find(original_function(name)), std::string::npos) << name;
  EXPECT_EQ(s.find("x * 0"), std::string::npos);
  EXPECT_NE(s.find("TOLERANCE = {\"rtol\": 1e-5, \"atol\": 1e-6}"), std::string::npos);
  EXPECT_EQ(s.find("import torch\nimport torch"), std::string::npos) << "no duplicated imports";

  EXPECT_EQ(c.params["replaced"], (nlohmann::json{"softmax_kernel", "launch"}));
  EXPECT_EQ(c.params["inserted"], (nlohmann::json{"_row_max", "LOG2E"}));
  EXPECT_EQ(c.params["added_imports"], (nlohmann::json{"import math"}));
  EXPECT_EQ(c.params["ignored"].size(), 1u);
  EXPECT_EQ(c.params["model"], "test-model");
  EXPECT_EQ(c.params["prompt_tokens"], 3000);
  EXPECT_EQ(c.params["completion_tokens"], 700);
  EXPECT_NEAR(c.params["cost_usd"].get<double>(), 3000e-6 + 700 * 4e-6, 1e-12);
  EXPECT_NE(c.diff.find("--- a/softmax.py"), std::string::npos);
  EXPECT_NE(c.diff.find("+    num = tl.exp2((x - _row_max(x)) * LOG2E)"), std::string::npos);
  EXPECT_NE(c.diff.find("-    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=256)"),
            std::string::npos);

  // Triton 3.6 compiles it for sm_90 (through the bridge, no GPU needed).
  fs::path dir = scratch_dir();
  std::ofstream(dir / "softmax.candidate.py") << s;
  auto compiled = bridge().call("compile", nlohmann::json{{"task", (dir / "softmax.candidate.py").string()},
                                                          {"out_dir", (dir / "softmax.candidate").string()}});
  ASSERT_TRUE(compiled.has_value()) << compiled.error().diagnostic.to_string();
  EXPECT_EQ((*compiled)["kernels"][0]["launch"]["constexprs"]["BLOCK"], 4096);

  // The candidate is a task the bridge loads, with both jit functions.
  auto loaded = load_source_through_bridge(bridge(), s, "check");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().diagnostic.to_string();
  Task t = task_from_json(*loaded);
  EXPECT_NE(t.kernel("softmax_kernel"), nullptr);
  EXPECT_NE(t.kernel("_row_max"), nullptr);

  // One call record, tied to attempt 0, and the usage.
  ASSERT_EQ(r.rewriter->last_calls().size(), 1u);
  EXPECT_EQ(r.rewriter->last_calls()[0].attempt_index, 0u);
  EXPECT_EQ(r.rewriter->last_calls()[0].call["status"], "ok");
  EXPECT_EQ(r.rewriter->totals().prompt_tokens, 3000);
  EXPECT_EQ(r.rewriter->totals().completion_tokens, 700);
}

TEST(LlmRewriterTest, TheRequestCarriesTheSourceAndFindings) {
  Rewrite r({FakeReply::chat(kGoodReply)});
  auto got = r.server.received();
  ASSERT_EQ(got.size(), 1u);
  const auto& body = got[0].json;
  EXPECT_EQ(body["model"], "test-model");
  ASSERT_EQ(body["messages"].size(), 2u);
  std::string user = body["messages"][1]["content"];
  fs::path dir = scratch_dir();
  std::ofstream(dir / "softmax.prompt.md") << body["messages"][0]["content"].get<std::string>() << "\n\n" << user;
  EXPECT_NE(user.find("row_max = tl.maximum(row_max, tl.max(x, axis=0))"), std::string::npos);
  EXPECT_NE(user.find("def make_inputs(device):"), std::string::npos);
  EXPECT_NE(user.find("l0-multi-pass-reduction"), std::string::npos);
  EXPECT_NE(user.find("ld.global.b32 {%r17}, [%rd9];"), std::string::npos);
  EXPECT_NE(user.find("- advice: keep the whole row in one block"), std::string::npos);
}

TEST(LlmRewriterTest, RetriedCallsBelongToTheirAttempt) {
  FakeReply limited = FakeReply::error(429, "rate limited");
  limited.headers["Retry-After"] = "0";
  LlmRewriterOptions two;
  two.attempts = 2;
  Rewrite r({limited, FakeReply::chat(kGoodReply), FakeReply::chat(kGoodReply)}, two);
  ASSERT_EQ(r.attempts.size(), 2u);
  EXPECT_TRUE(r.attempts[0].candidate.has_value()) << r.error(0);
  EXPECT_NE(r.error(1).find("same kernel as an earlier attempt"), std::string::npos) << r.error(1);
  const auto& calls = r.rewriter->last_calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].attempt_index, 0u);
  EXPECT_EQ(calls[0].call["status"], "http-error");
  EXPECT_EQ(calls[1].attempt_index, 0u);
  EXPECT_EQ(calls[1].call["attempt"], 2);
  EXPECT_EQ(calls[2].attempt_index, 1u);
}

TEST(LlmRewriterTest, EndpointFailureIsAnAttemptWithAReason) {
  Rewrite r({FakeReply::error(401, "invalid key")});
  ASSERT_EQ(r.attempts.size(), 1u);
  ASSERT_FALSE(r.attempts[0].candidate.has_value());
  EXPECT_EQ(r.attempts[0].candidate.error().stage, Stage::Llm);
  EXPECT_NE(r.error().find("HTTP 401"), std::string::npos);
  EXPECT_EQ(r.attempts[0].targets.size(), 2u);
}

TEST(LlmRewriterTest, ReplyWithoutCodeBlockIsRejected) {
  Rewrite r({FakeReply::chat("You should fuse the three passes into one.")});
  EXPECT_EQ(r.error(), "no code block in the reply");
}

TEST(LlmRewriterTest, SyntaxErrorIsRejectedWithPythonsMessage) {
  Rewrite r({FakeReply::chat("```python\nimport triton\n\n@triton.jit\ndef softmax_kernel(x:\n    pass\n\n"
                             "def launch(x):\n    return x\n```")});
  EXPECT_NE(r.error().find("not valid Python"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("was never closed"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("at line 4 of its code: `def softmax_kernel(x:`"), std::string::npos) << r.error();
}

TEST(LlmRewriterTest, PythonWithoutJitIsNotAKernel) {
  Rewrite r({FakeReply::chat("```python\nimport torch\n\ndef launch(x):\n    return torch.softmax(x, dim=-1)\n```")});
  EXPECT_NE(r.error().find("not a kernel"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("@triton.jit"), std::string::npos) << r.error();
}

// The answer format says functions left out stay as they are: a reply that rewrites the kernel
// and leaves launch out keeps the original's (a real reply did, tests/fixtures/llm_replies/).
TEST(LlmRewriterTest, KernelWithoutLaunchKeepsTheOriginalLaunch) {
  Rewrite r({FakeReply::chat("```python\nimport triton\n\n@triton.jit\ndef softmax_kernel(out_ptr, in_ptr, "
                             "in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):\n    pass\n```")});
  ASSERT_TRUE(r.attempts.at(0).candidate.has_value()) << r.error();
  const auto& c = *r.attempts[0].candidate;
  EXPECT_NE(c.source.find("    pass\n"), std::string::npos);
  EXPECT_NE(c.source.find(original_function("launch")), std::string::npos) << c.source;
  EXPECT_EQ(c.params["replaced"], nlohmann::json::array({"softmax_kernel"}));
}

// Small models add a usage line (`launch(x)` under "the launch function remains the same") or a
// __main__ demo: they would run on import (and fail there) but the splice never takes them.
TEST(LlmRewriterTest, TopLevelCallsAndMainBlocksAreNotRun) {
  std::string reply = kGoodReply;
  const std::string fence_end = "```\n";
  reply.insert(reply.rfind(fence_end), "\n# launch remains the same\nlaunch(x)\n\nif __name__ == \"__main__\":\n"
                                       "    print(launch(torch.randn(4, 4, device=\"cuda\")))\n");
  Rewrite r({FakeReply::chat(reply)});
  ASSERT_TRUE(r.attempts.at(0).candidate.has_value()) << r.error();
  const auto& c = *r.attempts[0].candidate;
  EXPECT_EQ(c.source.find("launch(x)\n"), std::string::npos);
  EXPECT_EQ(c.source.find("__main__"), std::string::npos);
  const std::string ignored = c.params["ignored"].dump();
  EXPECT_NE(ignored.find("`launch(x)` at line"), std::string::npos) << ignored;
  EXPECT_NE(ignored.find("`if __name__ == \\\"__main__\\\":` at line"), std::string::npos) << ignored;
}

TEST(LlmRewriterTest, NewKernelWithoutLaunchIsNotAKernel) {
  Rewrite r({FakeReply::chat("```python\nimport triton\n\n@triton.jit\ndef better_kernel(x):\n    pass\n```")});
  EXPECT_NE(r.error().find("not a kernel: the reply's code defines no launch function and replaces none of the "
                           "original's @triton.jit functions"),
            std::string::npos)
      << r.error();
}

TEST(LlmRewriterTest, ChangedLaunchSignatureIsRejected) {
  std::string reply = kGoodReply;
  reply.replace(reply.find("def launch(x):"), 14, "def launch(x, block=1024):");
  Rewrite r({FakeReply::chat(reply)});
  EXPECT_NE(r.error().find("changes launch's parameters from (x) to (x, block)"), std::string::npos) << r.error();
}

TEST(LlmRewriterTest, LaunchThatNoLongerLaunchesAKernelIsRejected) {
  Rewrite r({FakeReply::chat("```python\nimport torch\nimport triton\n\n@triton.jit\ndef unused(x):\n    pass\n\n"
                             "def launch(x):\n    return torch.softmax(x, dim=-1)\n```")});
  EXPECT_NE(r.error().find("no longer launches any @triton.jit kernel"), std::string::npos) << r.error();
}

TEST(LlmRewriterTest, ImportErrorIsRejected) {
  Rewrite r({FakeReply::chat("```python\nimport triton\nimport no_such_module_xyz\n\n@triton.jit\ndef k(x):\n    pass\n\n"
                             "def launch(x):\n    k[(1,)](x)\n```")});
  EXPECT_NE(r.error().find("fails when imported"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("no_such_module_xyz"), std::string::npos) << r.error();
}

TEST(LlmRewriterTest, UnchangedCodeIsRejected) {
  const auto& src = softmax().task.source;
  std::string code = src.substr(src.find("import torch"), src.find("def reference") - src.find("import torch"));
  Rewrite r({FakeReply::chat("Nothing to do.\n```python\n" + code + "```\n")});
  EXPECT_EQ(r.error(), "the reply's code changes nothing in the task");
}

TEST(LlmRewriterTest, TruncatedReplyIsRejected) {
  Rewrite r({FakeReply::chat(kGoodReply.substr(0, 400), "length", 3000, 8192)});
  EXPECT_NE(r.error().find("finish_reason \"length\""), std::string::npos) << r.error();
  EXPECT_EQ(r.rewriter->last_calls().size(), 1u);
  EXPECT_EQ(r.rewriter->totals().completion_tokens, 8192);
}

// ---- splicing into another task: decorators, plain helpers, missing imports ----

const char* kAutotuned = R"PY("""An autotuned copy kernel."""
import torch
import triton
import triton.language as tl


def _grid(n, block):
    return (triton.cdiv(n, block),)


@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4)],
    key=["n"],
)
@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(in_ptr + i, mask=i < n), mask=i < n)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    copy_kernel[lambda meta: _grid(n, meta["BLOCK"])](out, x, n)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(1 << 20, device=device),))PY";  // no final newline

// The reply leaves out the imports, retunes the autotune configs and edits the plain helper.
const char* kAutotunedReply = R"PY(More configs.
```python
@triton.autotune(
    configs=[triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 4096}, num_warps=8)],
    key=["n"],
)
@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(in_ptr + i, mask=mask), mask=mask)


def _grid(n, block):
    return (triton.cdiv(n, block) * 2,)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    copy_kernel[lambda meta: _grid(n, meta["BLOCK"])](out, x, n)
    return out


if __name__ == "__main__":
    print(launch(torch.ones(4)))
```
)PY";

TEST(LlmRewriterTest, SplicesDecoratedKernelsAndKeepsPlainHelpers) {
  fs::path dir = scratch_dir();
  fs::path path = dir / "autotuned.py";
  std::ofstream(path) << kAutotuned;
  auto j = bridge().call("ast", nlohmann::json{{"task", path.string()}});
  ASSERT_TRUE(j.has_value()) << j.error().diagnostic.to_string();
  Task task = task_from_json(*j);
  PyModule ast = PyModule::from_json((*j)["module"]);
  KernelContext ctx;
  ctx.task = &task;
  ctx.ast = &ast;
  std::vector<Finding> none;
  RewriteRequest request{ctx, none, ""};

  LlmConfig config;
  config.base_url = "http://127.0.0.1:9/v1";
  config.model = "m";
  LlmRewriter rewriter(config, bridge());
  auto c = rewriter.candidate_from_reply(request, kAutotunedReply);
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  const std::string& s = c->source;
  EXPECT_NE(s.find("configs=[triton.Config({\"BLOCK\": 1024}, num_warps=4), triton.Config({\"BLOCK\": 4096}"),
            std::string::npos);
  EXPECT_EQ(s.find("triton.Config({\"BLOCK\": 128}"), std::string::npos) << "the whole decorator is replaced";
  EXPECT_EQ(s.find("@triton.autotune"), s.rfind("@triton.autotune")) << "once";
  EXPECT_NE(s.find("    return (triton.cdiv(n, block),)\n"), std::string::npos) << "plain helpers stay the original's";
  EXPECT_EQ(s.find("__main__"), std::string::npos);
  EXPECT_EQ(s.find("import torch"), s.rfind("import torch"));
  EXPECT_NE(s.find("    return (torch.randn(1 << 20, device=device),)"), std::string::npos);
  EXPECT_NE(s.back(), '\n') << "the original's missing final newline is kept";
  EXPECT_EQ(c->params["replaced"], (nlohmann::json{"copy_kernel"})) << c->params.dump();
  EXPECT_EQ(c->params["ignored"].size(), 2u) << c->params.dump();
  EXPECT_EQ(c->description, "More configs.");
  EXPECT_TRUE(c->targets.empty());

  // Without the context's AST the rewriter parses the task source itself.
  KernelContext no_ast = ctx;
  no_ast.ast = nullptr;
  auto again = rewriter.candidate_from_reply(RewriteRequest{no_ast, none, ""}, kAutotunedReply);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->source, s);
}

// ---- a real endpoint (skipped unless asked for) ----

// TRITONDX_LLM_LIVE_TEST=1 plus the usual TRITONDX_LLM_* variables (or llm.json): one request
// to a real model. Its kernel may be rejected (a small model's often is), but with a reason.
TEST(LlmLiveTest, RewritesSoftmaxThroughARealEndpoint) {
  if (!system_env("TRITONDX_LLM_LIVE_TEST")) GTEST_SKIP() << "set TRITONDX_LLM_LIVE_TEST=1 and configure an endpoint";
  auto config = load_llm_config();
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  LlmRewriter rewriter(*config, bridge());
  auto attempts = rewriter.propose(softmax().request());
  ASSERT_EQ(attempts.size(), 1u);
  ASSERT_FALSE(rewriter.last_calls().empty());
  const auto& last = rewriter.last_calls().back().call;
  std::cout << "call: status=" << last["status"] << " latency_s=" << last["latency_s"]
            << " prompt_tokens=" << last["prompt_tokens"] << " completion_tokens=" << last["completion_tokens"] << "\n";
  if (last["reply"].is_string()) {
    auto parsed = parse_chat_reply(last["reply"].get<std::string>());
    std::cout << "reply:\n" << parsed.reply.content.substr(0, 3000) << "\n";
  }
  EXPECT_EQ(last["status"], "ok") << last["error"];
  if (attempts[0].candidate)
    std::cout << "candidate diff:\n" << attempts[0].candidate->diff << "\n";
  else
    std::cout << "rejected: " << attempts[0].candidate.error().message << "\n";
  if (!attempts[0].candidate) {
    EXPECT_FALSE(attempts[0].candidate.error().message.empty());
  }
}

}  // namespace
}  // namespace tdx
