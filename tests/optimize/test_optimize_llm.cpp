// The optimize loop with the LLM rewriter, against a local server that speaks the
// chat-completions protocol: a good reply becomes a verified candidate, a malformed one is
// rejected with its reason, and every call is in the store with its tokens.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tritondx/optimize/search.h"
#include "tritondx/rewrite/llm/fake_chat_server.h"
#include "tritondx/store/store.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

const char* kOnePassSoftmax = R"(Here is a version that loads each row once.

```python
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return out
```
)";

TEST(OptimizeLlm, RepliesBecomeCandidatesOrReasonsAndEveryCallIsStored) {
  FakeChatServer server;
  server.push(FakeReply::chat(kOnePassSoftmax, "stop", 1200, 300));
  server.push(FakeReply::chat("I cannot help with that.", "stop", 900, 20));  // no code: rejected
  setenv("TRITONDX_LLM_BASE_URL", server.base_url().c_str(), 1);
  setenv("TRITONDX_LLM_MODEL", "fake-model", 1);
  setenv("TRITONDX_LLM_API_KEY", "sk-test", 1);

  fs::path out = fs::temp_directory_path() / "tritondx-optimize-tests" / "llm";
  fs::remove_all(out);
  OptimizeOptions o;
  o.task_path = (fs::path(TRITONDX_SOURCE_DIR) / "examples" / "softmax.py").string();
  o.out_dir = out.string();
  o.gpu = GpuMode::Off;
  o.llm = true;
  // Enough for the recipes' children of the original (single-pass-reduction, online-softmax,
  // exp-to-exp2, divisibility-by-construction, ...) and the expansion of a second node, where
  // the LLM is asked again.
  o.max_candidates = 14;
  o.max_depth = 2;
  Bridge bridge(BridgeConfig::from_environment());
  auto r = optimize(bridge, o);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();

  // The LLM was asked with the kernel and its findings.
  auto received = server.received();
  ASSERT_GE(received.size(), 2u);
  EXPECT_EQ(received[0].authorization, "Bearer sk-test");
  std::string prompt = received[0].json.dump();
  EXPECT_NE(prompt.find("softmax_kernel"), std::string::npos);
  EXPECT_NE(prompt.find("l0-multi-pass-reduction"), std::string::npos);

  int llm_candidates = 0;
  for (const auto& n : r->nodes)
    if (n.candidate.rewriter == "llm") {
      ++llm_candidates;
      EXPECT_NE(n.status, "rejected") << n.reject_stage << ": " << n.reject_reason;
      EXPECT_NE(n.candidate.source.find("def reference(x):"), std::string::npos);  // the task's own reference
    }
  EXPECT_EQ(llm_candidates, 1);
  bool reason_noted = false;
  for (const auto& note : r->notes) reason_noted |= note.find("llm declined") != std::string::npos;
  EXPECT_TRUE(reason_noted) << "the malformed reply's reason is not in the notes";

  auto store = Store::open(r->store_path);
  ASSERT_TRUE(store.has_value());
  auto usage = store->llm_usage(r->run_id);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->calls, static_cast<long long>(received.size()));
  EXPECT_EQ(usage->prompt_tokens, 1200 + 900 * static_cast<long long>(received.size() - 1));
  unsetenv("TRITONDX_LLM_BASE_URL");
  unsetenv("TRITONDX_LLM_MODEL");
  unsetenv("TRITONDX_LLM_API_KEY");
}

// --no-recipes (an LLM-only run, the ablation's search): the LLM's candidates alone, and its
// first call already carries the findings of every level (here the L3 ones, which the escalation
// would only reach after the L1 and L2 recipes).
TEST(OptimizeLlm, WithoutRecipesOnlyTheLlmProposesAndGetsEveryLevelAtOnce) {
  FakeChatServer server;
  server.push(FakeReply::chat(kOnePassSoftmax, "stop", 1200, 300));
  setenv("TRITONDX_LLM_BASE_URL", server.base_url().c_str(), 1);
  setenv("TRITONDX_LLM_MODEL", "fake-model", 1);

  fs::path out = fs::temp_directory_path() / "tritondx-optimize-tests" / "llm-only";
  fs::remove_all(out);
  OptimizeOptions o;
  o.task_path = (fs::path(TRITONDX_SOURCE_DIR) / "examples" / "softmax.py").string();
  o.out_dir = out.string();
  o.gpu = GpuMode::Off;
  o.llm = true;
  o.recipes = false;
  o.max_candidates = 4;
  o.max_depth = 1;
  Bridge bridge(BridgeConfig::from_environment());
  auto r = optimize(bridge, o);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();

  ASSERT_EQ(server.received().size(), 1u);  // depth 1: the original is the only parent
  std::string prompt = server.received()[0].json.dump();
  EXPECT_NE(prompt.find("(L0"), std::string::npos);
  EXPECT_NE(prompt.find("(L3"), std::string::npos) << prompt;
  ASSERT_EQ(r->nodes.size(), 2u);
  EXPECT_EQ(r->nodes[1].candidate.rewriter, "llm");
  unsetenv("TRITONDX_LLM_BASE_URL");
  unsetenv("TRITONDX_LLM_MODEL");
}

TEST(OptimizeLlm, WithoutRecipesAndWithoutTheLlmNothingWouldProposeAndItSaysSo) {
  OptimizeOptions o;
  o.task_path = (fs::path(TRITONDX_SOURCE_DIR) / "examples" / "softmax.py").string();
  o.out_dir = (fs::temp_directory_path() / "tritondx-optimize-tests" / "no-recipes").string();
  o.gpu = GpuMode::Off;
  o.recipes = false;
  Bridge bridge(BridgeConfig::from_environment());
  auto r = optimize(bridge, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("--no-recipes leaves nothing to propose candidates: add --llm"), std::string::npos);
}

}  // namespace
}  // namespace tdx
