// l3-vectorization-lost's what-if compiles, on a fixture where two causes limit the width
// together: the row stride and the column bound, neither a multiple of 16.
#include <gtest/gtest.h>

#include <filesystem>

#include "tritondx/ladder/rule.h"
#include "tritondx/ladder/session.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

TEST(VectorizationLostWhatIf, StrideAndMaskConfirmedTogether) {
  RuleRegistry registry;
  register_all_rules(registry);
  const Rule* rule = registry.find("l3-vectorization-lost");
  ASSERT_NE(rule, nullptr);
  Bridge bridge(BridgeConfig::from_environment());
  SessionOptions options;
  options.task_path =
      std::string(TRITONDX_SOURCE_DIR) + "/tests/rules/l3/l3-vectorization-lost/fires_stride_and_mask.py";
  options.artifacts_dir = (fs::temp_directory_path() / "tritondx-rule-tests" / "what-if-stride-and-mask").string();
  auto session = DiagnosisSession::open(bridge, options);
  ASSERT_TRUE(session.has_value()) << session.error().diagnostic.to_string();
  ASSERT_FALSE((*session)->compile(false).has_value());
  std::vector<RuleFailure> failures;
  int checked = 0;
  for (const auto& ctx : (*session)->contexts())
    for (const auto& f : DiagnosisSession::run_rule(*rule, ctx, failures)) {
      ++checked;
      std::string notes;
      bool joint = false;
      for (const auto& e : f.evidence) {
        notes += e.note + "\n";
        joint |= e.note.find("confirmed: stride_xm and the mask's bound n_cols limit the width together") !=
                     std::string::npos ||
                 e.note.find("confirmed: stride_om and the mask's bound n_cols limit the width together") !=
                     std::string::npos;
      }
      EXPECT_TRUE(joint) << "line " << f.loc.line << ":\n" << notes;
      EXPECT_GE(f.confidence, 0.9) << notes;  // joins the search's first expansion
      std::vector<std::string> recipes;
      for (const auto& p : f.proposals) recipes.push_back(p.recipe);
      EXPECT_NE(std::find(recipes.begin(), recipes.end(), "flatten-contiguous-rows"), recipes.end());
      EXPECT_NE(std::find(recipes.begin(), recipes.end(), "unmasked-full-blocks"), recipes.end());
    }
  EXPECT_EQ(checked, 2);
  for (const auto& failure : failures) ADD_FAILURE() << "rule threw: " << failure.message;
}

}  // namespace
}  // namespace tdx
