// What some rules' findings say beyond their lines (which test_rules.cpp checks): the what-if
// compiles behind a confidence, and a cause that depends on what AxisInfo can prove.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "tritondx/source/scan_propagate_match.h"
#include "tritondx/ladder/rule.h"
#include "tritondx/ladder/session.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

// The findings of one rule on a fixture, compiled (what-ifs allowed) through the real bridge.
std::vector<Finding> findings_of(const std::string& rule_id, const std::string& fixture) {
  RuleRegistry registry;
  register_all_rules(registry);
  const Rule* rule = registry.find(rule_id);
  EXPECT_NE(rule, nullptr) << rule_id;
  if (!rule) return {};
  Bridge bridge(BridgeConfig::from_environment());
  SessionOptions options;
  options.task_path = std::string(TRITONDX_SOURCE_DIR) + "/" + fixture;
  options.artifacts_dir =
      (fs::temp_directory_path() / "tritondx-rule-tests" / "details" / fs::path(fixture).stem()).string();
  auto session = DiagnosisSession::open(bridge, options);
  EXPECT_TRUE(session.has_value()) << (session ? "" : session.error().diagnostic.to_string());
  if (!session) return {};
  EXPECT_FALSE((*session)->compile(false).has_value());
  std::vector<RuleFailure> failures;
  std::vector<Finding> out;
  for (const auto& ctx : (*session)->contexts())
    for (auto& f : DiagnosisSession::run_rule(*rule, ctx, failures)) out.push_back(std::move(f));
  for (const auto& failure : failures) ADD_FAILURE() << "rule threw: " << failure.message;
  return out;
}

// The row stride and the column bound, neither a multiple of 16, limit the width together:
// assuming the stride divisible alone changes nothing, both together widen the accesses.
TEST(FindingDetails, VectorizationLostConfirmsStrideAndMaskTogether) {
  auto findings = findings_of("l3-vectorization-lost", "tests/rules/l3/l3-vectorization-lost/fires_stride_and_mask.py");
  EXPECT_EQ(findings.size(), 2u);
  for (const auto& f : findings) {
    std::string notes;
    bool joint = false;
    for (const auto& e : f.evidence) {
      notes += e.note + "\n";
      for (const char* stride : {"stride_xm", "stride_om"})
        joint |= e.note.find(std::string("confirmed: ") + stride + " and the mask's bound n_cols limit the width together") !=
                 std::string::npos;
    }
    EXPECT_TRUE(joint) << "line " << f.loc.line << ":\n" << notes;
    EXPECT_GE(f.confidence, 0.9) << notes;  // joins the search's first expansion
    std::vector<std::string> recipes;
    for (const auto& p : f.proposals) recipes.emplace_back(p.recipe);
    EXPECT_NE(std::find(recipes.begin(), recipes.end(), "flatten-contiguous-rows"), recipes.end());
    EXPECT_NE(std::find(recipes.begin(), recipes.end(), "unmasked-full-blocks"), recipes.end());
  }
}

// n_cols = 1000 has no tt.divisibility = 16: `offs % n_cols` loses the bias load's contiguity.
// D = 32 is specialized as a multiple of 16: `offs % D` keeps runs of 16, only the division costs.
TEST(FindingDetails, IntDivModSaysWhetherTheAccessesLoseTheirWidth) {
  auto lost = findings_of("l2-int-div-mod-index", "tests/rules/l2/l2-int-div-mod-index/fires.py");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_NE(lost[0].cause.find("the accesses it indexes lose vectorization"), std::string::npos) << lost[0].cause;
  EXPECT_DOUBLE_EQ(lost[0].confidence, 0.75);

  auto kept = findings_of("l2-int-div-mod-index", "tests/recipes/constexpr-divisor/applies.py");
  ASSERT_FALSE(kept.empty());
  for (const auto& f : kept) {
    EXPECT_NE(f.cause.find("stay vectorizable"), std::string::npos) << "line " << f.loc.line << ": " << f.cause;
    EXPECT_DOUBLE_EQ(f.confidence, 0.6);
  }
}

// constexpr-divisor is proposed only where it turns the division into a shift: for a divisor
// captured at a power of two (even one the author kept from specializing, which the recipe then
// declines), not for n_cols = 1000 or the permute with D = 96, S = 48, H = 6.
TEST(FindingDetails, IntDivModProposesConstexprDivisorOnlyForPowersOfTwo) {
  auto proposes = [](const Finding& f) {
    return std::any_of(f.proposals.begin(), f.proposals.end(), [](const auto& p) { return p.recipe == "constexpr-divisor"; });
  };
  auto odd = findings_of("l2-int-div-mod-index", "tests/rules/l2/l2-int-div-mod-index/fires.py");
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_FALSE(proposes(odd[0]));
  EXPECT_NE(odd[0].cause.find("1000 is not a power of two"), std::string::npos) << odd[0].cause;
  auto odd_permute = findings_of("l2-int-div-mod-index", "tests/recipes/constexpr-divisor/refuses_not_power_of_two.py");
  ASSERT_FALSE(odd_permute.empty());
  for (const auto& f : odd_permute) EXPECT_FALSE(proposes(f)) << "line " << f.loc.line;
  for (const char* fixture : {"tests/recipes/constexpr-divisor/applies.py",
                              "tests/recipes/constexpr-divisor/refuses_do_not_specialize.py"}) {
    auto pow2 = findings_of("l2-int-div-mod-index", fixture);
    ASSERT_FALSE(pow2.empty()) << fixture;
    EXPECT_TRUE(std::any_of(pow2.begin(), pow2.end(), proposes)) << fixture;
  }
}

// The host-summed buffer's gain is the traffic ratio of the launch: x and y (512 x 8192 fp32) and the
// int64 labels once each, beside the fp32 loss buffer's three passes (zero fill, store, sum).
TEST(FindingDetails, HostSummedOutputGainIsTheLaunchsTrafficRatio) {
  auto findings = findings_of("l0-host-summed-output", "tests/rules/l0/l0-host-summed-output/fires.py");
  ASSERT_EQ(findings.size(), 1u);
  const double buffer = 512.0 * 8192 * 4, others = 2 * buffer + 512 * 8;
  EXPECT_NEAR(findings[0].estimated_gain.value_or(0), (others + 3 * buffer) / others, 1e-9);
}

// The scan-then-propagate finding quotes both launches and the load that reads the local scans
// back, and its gain is the traffic ratio: (4 + 3 x 4) / (2 x 4 + 4) bytes for fp32.
TEST(FindingDetails, ScanThenPropagateQuotesBothLaunchesAndTheTrafficRatio) {
  auto findings = findings_of("l0-scan-then-propagate", "tests/rules/l0/l0-scan-then-propagate/fires.py");
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_NEAR(f.estimated_gain.value_or(0), 16.0 / 12.0, 1e-9);
  ASSERT_EQ(f.proposals.size(), 1u);
  EXPECT_EQ(f.proposals[0].recipe, "reduce-then-scan");
  EXPECT_EQ(f.proposals[0].params["second_kernel"], "add_back_kernel");
  std::set<int> lines;
  for (const auto& e : f.evidence) lines.insert(e.loc.line);
  for (int line : {15, 36, 48, 50}) EXPECT_TRUE(lines.count(line)) << "no evidence at line " << line;
}

// Where the structure is not there, the match says what is missing (the recipe refuses with it).
TEST(FindingDetails, ScanThenPropagateMatchSaysWhatIsMissing) {
  auto why_not = [](const std::string& fixture, const std::string& kernel) {
    Bridge bridge(BridgeConfig::from_environment());
    SessionOptions options;
    options.task_path = std::string(TRITONDX_SOURCE_DIR) + "/" + fixture;
    options.artifacts_dir =
        (fs::temp_directory_path() / "tritondx-rule-tests" / "scan-match" / fs::path(fixture).stem()).string();
    auto session = DiagnosisSession::open(bridge, options);
    EXPECT_TRUE(session.has_value());
    if (!session) return std::string("no session");
    for (const auto& ctx : (*session)->contexts()) {
      if (ctx.kernel_name() != kernel) continue;
      std::string why;
      l0::KernelView view(ctx);
      return l0::match_scan_then_propagate(view, why) ? std::string("matched") : why;
    }
    return std::string("no kernel ") + kernel;
  };
  EXPECT_EQ(why_not("tests/recipes/reduce-then-scan/refuses_totals_from_output.py", "block_scan_kernel"),
            "the kernel stores nothing besides the scan (no block totals)");
  EXPECT_NE(
      why_not("tests/recipes/reduce-then-scan/refuses_mixed_types.py", "block_scan_kernel").find("other element types"),
      std::string::npos);
  EXPECT_EQ(why_not("tests/rules/l0/l0-scan-then-propagate/silent.py", "block_sum_kernel"), "no tl.store of a tl.cumsum");
  EXPECT_EQ(why_not("tests/rules/l0/l0-scan-then-propagate/fires.py", "block_scan_kernel"), "matched");
}


// l2-narrow-global-access proposes add-multiple-of-hint only with the kernel argument at the root
// of the lost alignment (the recipe lets the JIT specialize that argument), and only when the
// launch's value of that argument is a multiple of 16. lightllm's token softmax loses alignment
// through head strides that are not (its logits are not padded): those findings get advice to
// pad, naming the stride and its value, which no recipe would decline.
TEST(FindingDetails, NarrowGlobalAccessNamesTheArgumentItWantsSpecialized) {
  auto findings = findings_of("l2-narrow-global-access", "bench/corpus/lightllm/token_softmax.py");
  int named = 0, padded = 0;
  for (const auto& f : findings)
    for (const auto& p : f.proposals) {
      if (!p.params.contains("param")) continue;
      EXPECT_TRUE(p.params["param"].get<std::string>().starts_with("stride_")) << p.params.dump();
      if (p.recipe.str() == "add-multiple-of-hint") ++named;
      if (p.recipe.empty()) {
        EXPECT_NE(p.description.find("is not a multiple of 16, so no hint can prove the alignment"), std::string::npos)
            << p.description;
        ++padded;
      }
    }
  EXPECT_GT(named + padded, 0);
  EXPECT_GT(padded, 0);
}

// The rule fires on the config the capture compiled (num_warps=4), but the autotuner already has
// that config with num_warps=2: the ladder drops the set-num-warps proposal and the cause says why.
TEST(FindingDetails, ProposalTheAutotunerAlreadyTriesIsDropped) {
  auto plain = findings_of("l0-num-warps-mismatch", "tests/rules/l0/l0-num-warps-mismatch/fires.py");
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(plain[0].proposals.size(), 1u);
  EXPECT_EQ(plain[0].proposals[0].params["num_warps"], 2);

  auto tuned = findings_of("l0-num-warps-mismatch", "tests/rules/l0/l0-num-warps-mismatch/fires_autotuned_tried.py");
  ASSERT_EQ(tuned.size(), 1u);
  EXPECT_TRUE(tuned[0].proposals.empty());
  EXPECT_NE(tuned[0].cause.find("vector. The autotuner already tries num_warps=2 with the other values of the config "
                                "it compiled (config 2 of 2), so set-num-warps is not proposed."),
            std::string::npos)
      << tuned[0].cause;
}

// l0-multi-pass-reduction proposes online-softmax only where a max pass is followed by a pass
// summing exponentials; a layer norm's mean and variance passes get advice (Welford) instead.
TEST(FindingDetails, MultiPassReductionProposesOnlineSoftmaxOnlyForSoftmax) {
  auto recipes_of = [](const std::vector<Finding>& findings) {
    std::set<std::string> out;
    for (const auto& f : findings)
      for (const auto& p : f.proposals) out.insert(p.recipe.empty() ? "advice" : std::string(p.recipe.str()));
    return out;
  };
  auto softmax = recipes_of(findings_of("l0-multi-pass-reduction", "tests/rules/l0/l0-multi-pass-reduction/fires.py"));
  EXPECT_TRUE(softmax.count("online-softmax"));
  EXPECT_FALSE(softmax.count("advice"));
  auto layer_norm =
      recipes_of(findings_of("l0-multi-pass-reduction", "tests/rules/l0/l0-multi-pass-reduction/fires_layer_norm.py"));
  EXPECT_FALSE(layer_norm.count("online-softmax"));
  EXPECT_TRUE(layer_norm.count("single-pass-reduction"));
  EXPECT_TRUE(layer_norm.count("advice"));
}

// A rule proposes a retiling recipe (rows-per-program, reorder-tile, flatten-contiguous-rows) only
// for straight-line elementwise kernels, the ones those recipes rewrite; a kernel that reduces gets
// the same change as advice that names the reducing call.
TEST(FindingDetails, RetilingProposalsOfAReducingKernelAreAdvice) {
  auto elementwise = findings_of("l0-short-row-per-program", "tests/rules/l0/l0-short-row-per-program/fires.py");
  ASSERT_EQ(elementwise.size(), 1u);
  ASSERT_EQ(elementwise[0].proposals.size(), 1u);
  EXPECT_EQ(elementwise[0].proposals[0].recipe, "rows-per-program");

  auto reducing = findings_of("l0-short-row-per-program", "tests/rules/l0/l0-short-row-per-program/fires_reducing.py");
  ASSERT_EQ(reducing.size(), 1u);
  ASSERT_EQ(reducing[0].proposals.size(), 1u);
  EXPECT_TRUE(reducing[0].proposals[0].recipe.empty());
  EXPECT_NE(reducing[0].proposals[0].description.find("rows-per-program cannot: line 14: tl.sum: the kernel reduces"),
            std::string::npos)
      << reducing[0].proposals[0].description;
}

// single-pass-reduction fuses passes that are top-level loops of the kernel; passes inside a
// persistent row loop get the same change as advice naming that loop.
TEST(FindingDetails, MultiPassReductionProposesSinglePassOnlyForTopLevelPasses) {
  auto nested = findings_of("l0-multi-pass-reduction", "tests/rules/l0/l0-multi-pass-reduction/fires_persistent_rows.py");
  ASSERT_EQ(nested.size(), 1u);
  bool single_pass = false, advice = false;
  for (const auto& p : nested[0].proposals) {
    single_pass |= p.recipe == "single-pass-reduction";
    advice |= p.recipe.empty() &&
              p.description.find("single-pass-reduction fuses top-level passes only; these sit inside the For at line 13") !=
                  std::string::npos;
  }
  EXPECT_FALSE(single_pass);
  EXPECT_TRUE(advice);
}

}  // namespace
}  // namespace tdx
