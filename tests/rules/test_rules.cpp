// One runner for every rule fixture: tests/rules/<level>/<rule-id>/{fires*,silent*}.py.
//
// A fixture is a kernel task. In a `fires` fixture, each source line where the rule must
// report a finding ends with the comment `# CHECK: <rule-id>`; the rule must report on
// exactly those lines. A `silent` fixture must produce no finding of the rule. The rule's
// inputs (capture, compile, pass dumps, what-if compiles) are produced through the real
// bridge and Triton 3.6.0; an L1 fixture `X.py` also has `X.gpu/` with what the GPU
// measured for it (the bridge's run.json and Nsight Compute's CSV exports).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tritondx/ladder/rule.h"
#include "tritondx/ladder/session.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

struct RuleFixture {
  std::string rule_id;
  std::string path;
  bool fires = false;
};
void PrintTo(const RuleFixture& f, std::ostream* os) {
  *os << f.rule_id << "/" << fs::path(f.path).filename().string();
}

std::vector<RuleFixture> discover() {
  std::vector<RuleFixture> out;
  fs::path root = fs::path(TRITONDX_SOURCE_DIR) / "tests" / "rules";
  if (!fs::exists(root)) return out;
  for (const auto& level : fs::directory_iterator(root)) {
    if (!level.is_directory()) continue;
    for (const auto& rule : fs::directory_iterator(level.path())) {
      if (!rule.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(rule.path())) {
        auto name = file.path().filename().string();
        if (file.path().extension() != ".py") continue;
        bool fires = name.rfind("fires", 0) == 0;
        bool silent = name.rfind("silent", 0) == 0;
        if (!fires && !silent) continue;
        out.push_back({rule.path().filename().string(), file.path().string(), fires});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

std::set<int> check_lines(const Task& task, const std::string& rule_id) {
  std::set<int> lines;
  const std::string marker = "# CHECK: " + rule_id;
  for (size_t i = 0; i < task.lines.size(); ++i) {
    const auto& l = task.lines[i];
    auto pos = l.find(marker);
    if (pos != std::string::npos && l.find_first_not_of(" \t", pos + marker.size()) == std::string::npos)
      lines.insert(static_cast<int>(i + 1));
  }
  return lines;
}

const RuleRegistry& registry() {
  static RuleRegistry r = [] {
    RuleRegistry reg;
    register_all_rules(reg);
    return reg;
  }();
  return r;
}

// One bridge (one Python process, started once) for every fixture: ctest runs all fixtures of
// this suite as one test (tests/CMakeLists.txt), so Python, torch and Triton start once, not
// once a fixture. Each fixture's task is still imported as a module of its own.
const Bridge& fixture_bridge() {
  static Bridge bridge(BridgeConfig::from_environment());
  return bridge;
}

class RuleFixtureTest : public ::testing::TestWithParam<RuleFixture> {};

TEST_P(RuleFixtureTest, Expectations) {
  const auto& fx = GetParam();
  const Rule* rule = registry().find(fx.rule_id);
  ASSERT_NE(rule, nullptr) << "fixture folder names no registered rule: " << fx.rule_id;
  const Bridge& bridge = fixture_bridge();
  SessionOptions options;
  options.task_path = fx.path;
  options.artifacts_dir = (fs::temp_directory_path() / "tritondx-rule-tests" / fx.rule_id /
                           fs::path(fx.path).stem()).string();
  auto session = DiagnosisSession::open(bridge, options);
  ASSERT_TRUE(session.has_value()) << session.error().diagnostic.to_string();
  auto needs = rule->needs();
  if (needs.program || needs.pass_dumps || needs.measurement || needs.profile) {
    const auto& error = (*session)->compile(needs.pass_dumps);
    ASSERT_FALSE(error.has_value()) << error->diagnostic.to_string();
  }
  // L1 fixtures carry a recording made on the GPU: <stem>.gpu/{run.json,details.csv,raw.csv,source.csv}.
  fs::path recording = fs::path(fx.path).replace_extension(".gpu");
  if (needs.measurement || needs.profile) {
    ASSERT_TRUE(fs::exists(recording)) << "an L1 fixture needs its GPU recording in " << recording;
    auto loaded = (*session)->load_recording(recording.string());
    ASSERT_TRUE(loaded.has_value()) << loaded.error().to_string();
  }
  std::vector<RuleFailure> failures;
  std::set<int> reported;
  std::string report;
  for (const auto& ctx : (*session)->contexts()) {
    for (const auto& f : DiagnosisSession::run_rule(*rule, ctx, failures)) {
      reported.insert(f.loc.line);
      report += fmt::format("  line {}: {}\n", f.loc.line, f.symptom);
      EXPECT_FALSE(f.symptom.empty());
      EXPECT_FALSE(f.evidence.empty()) << "a finding needs an evidence chain";
      EXPECT_GE(f.confidence, 0.0);
      EXPECT_LE(f.confidence, 1.0);
    }
  }
  for (const auto& failure : failures) ADD_FAILURE() << "rule threw: " << failure.message;
  auto expected = check_lines((*session)->task(), fx.rule_id);
  if (fx.fires) {
    ASSERT_FALSE(expected.empty()) << fx.path << " has no '# CHECK: " << fx.rule_id << "' line";
    EXPECT_EQ(reported, expected) << "findings:\n" << report;
  } else {
    EXPECT_TRUE(reported.empty()) << "silent fixture got findings:\n" << report;
  }
}

std::string fixture_name(const ::testing::TestParamInfo<RuleFixture>& info) {
  std::string name = info.param.rule_id + "_" + fs::path(info.param.path).stem().string();
  for (auto& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleFixtureTest, ::testing::ValuesIn(discover()), fixture_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RuleFixtureTest);

// The findings of one rule on one fixture of tests/rules/<level>/<rule>/, compiled here; an L1
// fixture with its GPU recording (<stem>.gpu).
std::vector<Finding> fixture_findings(const std::string& rule_id, const std::string& fixture) {
  const Rule* rule = registry().find(rule_id);
  EXPECT_NE(rule, nullptr) << rule_id;
  if (!rule) return {};
  std::string level = fmt::format("l{}", static_cast<int>(rule->level()));
  fs::path path = fs::path(TRITONDX_SOURCE_DIR) / "tests" / "rules" / level / rule_id / fixture;
  SessionOptions options;
  options.task_path = path.string();
  options.artifacts_dir = (fs::temp_directory_path() / "tritondx-rule-tests" / "proposals" / rule_id).string();
  auto session = DiagnosisSession::open(fixture_bridge(), options);
  EXPECT_TRUE(session.has_value()) << session.error().diagnostic.to_string();
  if (!session) return {};
  const auto& error = (*session)->compile(rule->needs().pass_dumps);
  EXPECT_FALSE(error.has_value()) << error->diagnostic.to_string();
  if (rule->needs().measurement || rule->needs().profile) {
    auto loaded = (*session)->load_recording(fs::path(path).replace_extension(".gpu").string());
    EXPECT_TRUE(loaded.has_value()) << loaded.error().to_string();
  }
  std::vector<Finding> out;
  std::vector<RuleFailure> failures;
  for (const auto& ctx : (*session)->contexts())
    for (auto& f : DiagnosisSession::run_rule(*rule, ctx, failures)) out.push_back(std::move(f));
  for (const auto& failure : failures) ADD_FAILURE() << "rule threw: " << failure.message;
  return out;
}

// The recipes the findings propose, advice as "advice".
std::set<std::string> proposed_recipes(const std::vector<Finding>& findings) {
  std::set<std::string> out;
  for (const auto& f : findings)
    for (const auto& p : f.proposals) out.insert(fmt::format("{}", p.recipe));
  return out;
}

std::string proposals_text(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings)
    for (const auto& p : f.proposals) out += fmt::format("  line {}: {} {}\n", f.loc.line, p.recipe, p.params.dump());
  return out;
}

// examples/matmul.py on the H200 is limited by L2, not the SM: the proposal is the grow-tile
// recipe with the output tile's constexprs named (the finding is on the def line, where there
// is no access to read them from), 64x64 -> 128x128.
TEST(L1Proposals, BoundClassComputeLimitedByCacheProposesGrowTile) {
  auto findings = fixture_findings("l1-bound-class", "fires_matmul.py");
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings.front();
  EXPECT_NE(f.symptom.find("compute-bound workload limited by L2"), std::string::npos) << f.symptom;
  const RewriteProposal* grow = nullptr;
  for (const auto& p : f.proposals)
    if (p.recipe == "grow-tile") grow = &p;
  ASSERT_NE(grow, nullptr) << "proposals:\n" << proposals_text(findings);
  nlohmann::json expected = {{"from", nlohmann::json::array({64, 64})},
                             {"tile", nlohmann::json::array({128, 128})},
                             {"constexprs", nlohmann::json::array({"BLOCK_M", "BLOCK_N"})}};
  EXPECT_EQ(grow->params, expected) << grow->params.dump();
  EXPECT_NE(grow->description.find("BLOCK_M 64 -> 128"), std::string::npos) << grow->description;
}

// The L1 rules name recipes where one fits: warps of matmul's loop waiting for its cp.async
// copies propose set-num-stages with the launch's default 3 + 1, and softmax's single BLOCK
// constexpr is grown by grow-block. (A proposal can only name a built-in recipe or be advice:
// RecipeId is checked at compile time.)
TEST(L1Proposals, RecipesWhereOneFits) {
  auto find = [](const std::vector<Finding>& findings, int line, const std::string& recipe) -> const RewriteProposal* {
    for (const auto& f : findings)
      for (const auto& p : f.proposals)
        if (f.loc.line == line && p.recipe == recipe) return &p;
    return nullptr;
  };
  auto stall = fixture_findings("l1-hot-line-stall", "fires_matmul.py");
  const RewriteProposal* stages = find(stall, 28, "set-num-stages");
  ASSERT_NE(stages, nullptr) << proposals_text(stall);
  EXPECT_EQ(stages->params, (nlohmann::json{{"num_stages", 4}}));

  auto softmax = fixture_findings("l1-bound-class", "fires.py");
  const RewriteProposal* grow = find(softmax, 13, "grow-block");
  ASSERT_NE(grow, nullptr) << proposals_text(softmax);
  EXPECT_EQ(grow->params, (nlohmann::json{{"constexpr", "BLOCK"}, {"from", 256}, {"block", 1024}}));
}

// A mask of bounds is lifted by compiling an even variant (even-shape-heuristic); a mask read
// from memory (a gather's index check) stays whatever the shape, so that finding is advice
// naming the load, not a recipe that would have to decline.
TEST(L2Proposals, NarrowAccessMaskedByBoundsOrByLoadedData) {
  auto bounds = fixture_findings("l2-narrow-global-access", "fires.py");
  EXPECT_EQ(proposed_recipes(bounds), (std::set<std::string>{"even-shape-heuristic"})) << proposals_text(bounds);
  auto data = fixture_findings("l2-narrow-global-access", "fires_data_mask.py");
  ASSERT_EQ(data.size(), 1u) << proposals_text(data);
  EXPECT_EQ(proposed_recipes(data), (std::set<std::string>{"advice"})) << proposals_text(data);
  EXPECT_EQ(data.front().proposals.front().params.value("loaded_at", 0), 16) << proposals_text(data);
}

// Predicate work on tiles that are all full for the launch is lifted by an even variant; with a
// partial last tile no even variant exists, and the proposal guards the full tiles instead.
TEST(L2Proposals, ExcessivePredicationEvenOrPartialLastTile) {
  auto even = fixture_findings("l2-excessive-predication", "fires.py");
  EXPECT_EQ(proposed_recipes(even), (std::set<std::string>{"even-shape-heuristic"})) << proposals_text(even);
  auto partial = fixture_findings("l2-excessive-predication", "fires_partial_tile.py");
  EXPECT_EQ(proposed_recipes(partial), (std::set<std::string>{"unmasked-full-blocks"})) << proposals_text(partial);
  for (const auto& f : partial)
    for (const auto& p : f.proposals) EXPECT_TRUE(p.params.value("predicates", false)) << p.params.dump();
}

// Spills in a loop stepping by a large block: the block shrinks to 16 elements per thread (the
// recipe then edits the launch's computation of it); a matmul's spills (its accumulator) keep
// the advice.
TEST(L2Proposals, RegisterSpillsShrinkAStreamingLoopsBlock) {
  auto streaming = fixture_findings("l2-register-spills", "fires_streaming_block.py");
  ASSERT_EQ(streaming.size(), 1u);
  EXPECT_EQ(proposed_recipes(streaming), (std::set<std::string>{"resize-block", "set-num-warps", "set-num-stages"}))
      << proposals_text(streaming);
  const auto& resize = streaming.front().proposals.front();
  EXPECT_EQ(resize.params, (nlohmann::json{{"constexpr", "BLOCK"}, {"from", 65536}, {"block", 2048}}));
  EXPECT_NE(streaming.front().cause.find("holds 512 elements of each loaded tile per thread"), std::string::npos)
      << streaming.front().cause;
  auto matmul = fixture_findings("l2-register-spills", "fires.py");
  EXPECT_EQ(proposed_recipes(matmul).count("resize-block"), 0u) << proposals_text(matmul);
  EXPECT_EQ(proposed_recipes(matmul).count("advice"), 1u) << proposals_text(matmul);
}

// Every registered rule has a doc page, a firing and a silent fixture (STYLE.md, step 7).
TEST(RuleCatalogue, EveryRuleHasDocAndFixtures) {
  fs::path root(TRITONDX_SOURCE_DIR);
  for (const auto& rule : registry().rules()) {
    std::string id(rule->id());
    std::string level = fmt::format("l{}", static_cast<int>(rule->level()));
    std::string name = id.substr(id.find('-') + 1);
    EXPECT_TRUE(fs::exists(root / "docs" / "rules" / level / (name + ".md"))) << id << ": no doc page";
    bool fires = false, silent = false;
    fs::path dir = root / "tests" / "rules" / level / id;
    if (fs::exists(dir))
      for (const auto& f : fs::directory_iterator(dir)) {
        auto n = f.path().filename().string();
        fires |= n.rfind("fires", 0) == 0;
        silent |= n.rfind("silent", 0) == 0;
      }
    EXPECT_TRUE(fires) << id << ": no firing fixture in " << dir;
    EXPECT_TRUE(silent) << id << ": no silent fixture in " << dir;
    EXPECT_FALSE(rule->description().empty()) << id;
    EXPECT_EQ(id.rfind(level + "-", 0), 0u) << id << ": id must start with " << level << "-";
  }
}

}  // namespace
}  // namespace tdx
