// Real replies of a real model (tests/fixtures/llm_replies/*.json, recorded by the evidence
// ablation, docs/llm.md) taken apart and spliced again: each fixture names the task and kernel
// it answered, the reply's text, and what must come of it — a candidate (with text its code must
// hold) or a rejection (with text its reason must hold). A reply that once broke the reply parser
// or the splicer stays here as the regression test of its fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/rewrite/llm/llm_rewriter.h"
#include "tritondx/task/task.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(TRITONDX_SOURCE_DIR) / "tests" / "fixtures" / "llm_replies";

std::vector<fs::path> fixture_files() {
  std::vector<fs::path> files;
  if (!fs::is_directory(kFixtures)) return files;  // ThereAreRecordedReplies fails then
  for (const auto& e : fs::directory_iterator(kFixtures))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

class LlmReplyFixture : public ::testing::TestWithParam<fs::path> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LlmReplyFixture);

TEST_P(LlmReplyFixture, BecomesWhatItSays) {
  std::ifstream in(GetParam());
  const auto fixture = nlohmann::json::parse(in);
  const fs::path task_path = fs::path(TRITONDX_SOURCE_DIR) / fixture.at("task").get<std::string>();
  static const Bridge bridge(BridgeConfig::from_environment());  // one for every fixture (one ctest test)
  auto reply = bridge.call("ast", nlohmann::json{{"task", task_path.string()}});
  ASSERT_TRUE(reply.has_value()) << reply.error().diagnostic.to_string();
  Task task = task_from_json(*reply);
  PyModule ast = PyModule::from_json((*reply)["module"]);
  KernelContext ctx;
  ctx.task = &task;
  ctx.ast = &ast;
  ctx.function = ast.function(fixture.at("kernel").get<std::string>());
  ASSERT_NE(ctx.function, nullptr) << "no kernel " << fixture.at("kernel") << " in " << task_path;
  ctx.tolerance = task.tolerance;

  LlmConfig config;  // never contacted: the reply is given
  config.base_url = "http://127.0.0.1:9/v1";
  config.model = fixture.value("model", "recorded");
  LlmRewriter rewriter(config, bridge);
  auto candidate = rewriter.candidate_from_reply({ctx, {}, ""}, fixture.at("reply").get<std::string>());

  const auto& expect = fixture.at("expect");
  if (expect.contains("rejected")) {
    ASSERT_FALSE(candidate.has_value()) << "expected a rejection, got a candidate:\n" << candidate->diff;
    EXPECT_NE(candidate.error().message.find(expect["rejected"].get<std::string>()), std::string::npos)
        << candidate.error().message;
  } else {
    ASSERT_TRUE(candidate.has_value()) << candidate.error().message;
    for (const auto& text : expect.value("code_contains", nlohmann::json::array()))
      EXPECT_NE(candidate->source.find(text.get<std::string>()), std::string::npos) << text;
    EXPECT_NE(candidate->source.find("def reference("), std::string::npos);  // the task's own kept
  }
}

INSTANTIATE_TEST_SUITE_P(Recorded, LlmReplyFixture, ::testing::ValuesIn(fixture_files()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(LlmReplyFixtures, ThereAreRecordedReplies) { EXPECT_GE(fixture_files().size(), 3u); }

}  // namespace
}  // namespace tdx
