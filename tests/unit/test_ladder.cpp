// The ladder's bookkeeping: explained gains, rule failures that lose nothing, climbing limits.
#include <gtest/gtest.h>

#include <fstream>

#include "tritondx/ladder/ladder.h"

namespace tdx {
namespace {

Finding finding(int line, double gain, double confidence) {
  Finding f;
  f.kernel = "k";
  f.loc.line = line;
  f.estimated_gain = gain;
  f.confidence = confidence;
  return f;
}

TEST(ExplainedGain, BestGainPerLineMultipliedAcrossLines) {
  std::vector<Finding> fs{finding(10, 1.5, 0.9), finding(10, 2.0, 0.8), finding(20, 1.5, 0.9)};
  EXPECT_DOUBLE_EQ(explained_gain(fs, 0.6), 3.0);
}

TEST(ExplainedGain, LowConfidenceAndNoGainDoNotCount) {
  std::vector<Finding> fs{finding(10, 3.0, 0.3), finding(20, 1.0, 0.9)};
  Finding no_gain;
  no_gain.loc.line = 30;
  no_gain.confidence = 1;
  fs.push_back(no_gain);
  EXPECT_DOUBLE_EQ(explained_gain(fs, 0.6), 1.0);
}

class FixedRule : public Rule {
 public:
  FixedRule(std::string id, bool throws) : id_(std::move(id)), throws_(throws) {}
  std::string_view id() const override { return id_; }
  Level level() const override { return Level::L0; }
  std::string_view description() const override { return "test rule"; }
  RuleNeeds needs() const override { return {.ast = true}; }
  void check(const KernelContext& ctx, FindingSink& sink) const override {
    if (throws_) throw std::runtime_error("boom");
    Finding f;
    f.loc.line = ctx.function ? ctx.function->line : 1;
    f.symptom = "seen";
    f.evidence.push_back(ctx.source_evidence(f.loc.line));
    sink.report(std::move(f));
  }

 private:
  std::string id_;
  bool throws_;
};

std::unique_ptr<DiagnosisSession> vector_add_session() {
  std::ifstream in(std::string(TRITONDX_FIXTURES_DIR) + "/triton-3.6.0/vector_add/capture.json");
  SessionOptions options;
  options.artifacts_dir = testing::TempDir() + "/tritondx-ladder-test";
  auto s = DiagnosisSession::from_capture(nlohmann::json::parse(in), options);
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

TEST(Ladder, ARuleThatThrowsIsReportedAndOtherFindingsAreKept) {
  auto session = vector_add_session();
  RuleRegistry registry;
  registry.add(std::make_unique<FixedRule>("l0-a-throws", true));
  registry.add(std::make_unique<FixedRule>("l0-b-reports", false));
  LadderOptions options;
  options.max_level = 0;
  Diagnosis d = run_ladder(*session, registry, options);
  ASSERT_EQ(d.rule_failures.size(), 1u);
  EXPECT_EQ(d.rule_failures[0].rule_id, "l0-a-throws");
  EXPECT_EQ(d.rule_failures[0].message, "boom");
  ASSERT_EQ(d.kernels.size(), 1u);
  ASSERT_EQ(d.kernels[0].findings.size(), 1u);
  EXPECT_EQ(d.kernels[0].findings[0].rule_id, "l0-b-reports");
  EXPECT_EQ(d.kernels[0].findings[0].kernel, "add_kernel");
  EXPECT_EQ(d.kernels[0].findings[0].loc.line, 11);  // def add_kernel(...)
}

TEST(Ladder, MaxLevelZeroStopsAfterTriageWithoutCompiling) {
  auto session = vector_add_session();
  RuleRegistry registry;
  register_all_rules(registry);
  LadderOptions options;
  options.max_level = 0;
  Diagnosis d = run_ladder(*session, registry, options);
  ASSERT_EQ(d.steps.size(), 1u);
  EXPECT_EQ(d.reached, Level::L0);
  EXPECT_NE(d.stop_reason.find("--max-level 0"), std::string::npos) << d.stop_reason;
  EXPECT_FALSE(session->compiled());
  EXPECT_FALSE(d.compile_error.has_value());
}

TEST(Ladder, WithoutABridgeTheCompileFailsCleanlyAndL0IsKept) {
  auto session = vector_add_session();
  RuleRegistry registry;
  registry.add(std::make_unique<FixedRule>("l0-b-reports", false));
  Diagnosis d = run_ladder(*session, registry, LadderOptions{});
  ASSERT_TRUE(d.compile_error.has_value());
  EXPECT_EQ(d.kernels[0].findings.size(), 1u);
  EXPECT_NE(d.stop_reason.find("does not compile"), std::string::npos);
}

}  // namespace
}  // namespace tdx
