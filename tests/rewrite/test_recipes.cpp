// One runner for every recipe fixture: tests/recipes/<recipe-id>/{applies*,refuses*}.py.
//
// A fixture is a kernel task, diagnosed through the real bridge and Triton 3.6.0 (all levels,
// what-if compiles on). In an `applies` fixture some finding proposes the recipe; applying it
// must give exactly `<stem>.expected.py`, that source must compile, and the finding the recipe
// targeted must be gone from the rewritten kernel's diagnosis at the line it moved to (any
// line, when the fixture's first line says `# TARGET-GONE: anywhere`). A fixture `X.py` may carry
// a GPU recording in `X.gpu/` (see tests/rules/l1/README.md), then its L1 rules run too (the
// rewritten task is diagnosed without it). In a `refuses` fixture
// the recipe must produce no candidate: no finding proposes it, or the recipe declines with a
// reason (which must contain <text> where the fixture has a line `# DECLINES: <text>`).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <sstream>

#include "tritondx/ladder/ladder.h"
#include "tritondx/ladder/recipe_id.h"
#include "tritondx/ladder/rule.h"
#include "tritondx/rewrite/recipe.h"
#include "tritondx/rewrite/recipe_rewriter.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

struct RecipeFixture {
  std::string recipe_id;
  std::string path;
  bool applies = false;
};
void PrintTo(const RecipeFixture& f, std::ostream* os) {
  *os << f.recipe_id << "/" << fs::path(f.path).filename().string();
}

std::vector<RecipeFixture> discover() {
  std::vector<RecipeFixture> out;
  fs::path root = fs::path(TRITONDX_SOURCE_DIR) / "tests" / "recipes";
  if (!fs::exists(root)) return out;
  for (const auto& recipe : fs::directory_iterator(root)) {
    if (!recipe.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(recipe.path())) {
      auto name = file.path().filename().string();
      if (file.path().extension() != ".py" || name.find(".expected.") != std::string::npos) continue;
      bool applies = name.rfind("applies", 0) == 0;
      bool refuses = name.rfind("refuses", 0) == 0;
      if (!applies && !refuses) continue;
      out.push_back({recipe.path().filename().string(), file.path().string(), applies});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const RuleRegistry& rules() {
  static RuleRegistry r = [] {
    RuleRegistry reg;
    register_all_rules(reg);
    return reg;
  }();
  return r;
}

const RecipeRegistry& recipes() {
  static RecipeRegistry r = [] {
    RecipeRegistry reg;
    register_builtin_recipes(reg);
    return reg;
  }();
  return r;
}

struct Diagnosed {
  std::unique_ptr<DiagnosisSession> session;
  Diagnosis diagnosis;
};

std::expected<Diagnosed, std::string> diagnose(const Bridge& bridge, const std::string& path, const std::string& tag) {
  SessionOptions options;
  options.task_path = path;
  options.artifacts_dir = (fs::temp_directory_path() / "tritondx-recipe-tests" / tag).string();
  auto session = DiagnosisSession::open(bridge, options);
  if (!session) return std::unexpected(session.error().diagnostic.to_string());
  // A fixture `X.py` with a GPU recording `X.gpu/` (run.json and Nsight Compute's CSVs, as in
  // tests/rules/l1) is diagnosed with it, so L1 findings can propose the recipe. The recording
  // fits only the source it was made on: the rewritten task is diagnosed without it.
  if (fs::path recording = fs::path(path).replace_extension(".gpu"); fs::is_directory(recording)) {
    if (const auto& error = (*session)->compile(true)) return std::unexpected(error->diagnostic.to_string());
    auto loaded = (*session)->load_recording(recording.string());
    if (!loaded) return std::unexpected(loaded.error().to_string());
  }
  LadderOptions ladder;
  ladder.all_levels = true;
  Diagnosed d{std::move(*session), {}};
  d.diagnosis = run_ladder(*d.session, rules(), ladder);
  if (d.diagnosis.compile_error) return std::unexpected(d.diagnosis.compile_error->diagnostic.to_string());
  return d;
}

// One bridge (one Python process, started once) for every fixture: ctest runs all fixtures of
// this suite as one test (tests/CMakeLists.txt), so Python, torch and Triton start once, not
// once a fixture. Each fixture's task is still imported as a module of its own.
const Bridge& fixture_bridge() {
  static Bridge bridge(BridgeConfig::from_environment());
  return bridge;
}

class RecipeFixtureTest : public ::testing::TestWithParam<RecipeFixture> {};

TEST_P(RecipeFixtureTest, Expectations) {
  const auto& fx = GetParam();
  const Recipe* recipe = recipes().find(fx.recipe_id);
  ASSERT_NE(recipe, nullptr) << "fixture folder names no registered recipe: " << fx.recipe_id;
  const Bridge& bridge = fixture_bridge();
  std::string tag = fx.recipe_id + "/" + fs::path(fx.path).stem().string();
  auto before = diagnose(bridge, fx.path, tag);
  ASSERT_TRUE(before.has_value()) << before.error();

  std::vector<Candidate> candidates;
  std::string refusals;
  for (const auto& ctx : before->session->contexts())
    for (const auto& kd : before->diagnosis.kernels) {
      if (kd.kernel != ctx.kernel_name()) continue;
      for (const auto& f : kd.findings)
        for (const auto& p : f.proposals) {
          if (p.recipe != fx.recipe_id) continue;
          auto c = apply_recipe(*recipe, ctx, f, p);
          if (c) candidates.push_back(std::move(*c));
          else refusals += "  " + c.error().to_string() + "\n";
        }
    }

  if (!fx.applies) {
    EXPECT_TRUE(candidates.empty()) << "a refuses fixture got a candidate:\n" << candidates.front().diff;
    // `# DECLINES: <text>`: the recipe was proposed and declined with a reason containing <text>.
    std::istringstream lines(read_file(fx.path));
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("# DECLINES: ", 0) == 0)
        EXPECT_NE(refusals.find(line.substr(12)), std::string::npos) << "refusals:\n" << refusals;
    return;
  }
  ASSERT_FALSE(candidates.empty()) << "no candidate; refusals:\n" << refusals;
  const Candidate& c = candidates.front();
  fs::path expected_path = fs::path(fx.path).replace_extension(".expected.py");
  ASSERT_TRUE(fs::exists(expected_path)) << "missing " << expected_path << "; the candidate was:\n" << c.source;
  EXPECT_EQ(c.source, read_file(expected_path)) << c.diff;
  EXPECT_FALSE(c.diff.empty());

  // The rewritten task compiles, and the finding the recipe targeted is gone.
  fs::path out = fs::temp_directory_path() / "tritondx-recipe-tests" / (fx.recipe_id + "-" + fs::path(fx.path).filename().string());
  fs::create_directories(out.parent_path());
  std::ofstream(out) << c.source;
  auto after = diagnose(bridge, out.string(), tag + "-after");
  ASSERT_TRUE(after.has_value()) << "the rewritten task does not compile: " << after.error();
  bool anywhere = read_file(fx.path).rfind("# TARGET-GONE: anywhere", 0) == 0;
  int moved_to = map_line(read_file(fx.path), c.source, c.target_loc.line);
  for (const auto& kd : after->diagnosis.kernels)
    for (const auto& f : kd.findings)
      for (const auto& target : c.targets)
        if (f.rule_id == target && (anywhere || f.loc.line == moved_to))
          ADD_FAILURE() << target << " still reported after " << fx.recipe_id << " at line " << f.loc.line << ": "
                        << f.symptom;
}

std::string fixture_name(const ::testing::TestParamInfo<RecipeFixture>& info) {
  std::string name = info.param.recipe_id + "_" + fs::path(info.param.path).stem().string();
  for (auto& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Recipes, RecipeFixtureTest, ::testing::ValuesIn(discover()), fixture_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RecipeFixtureTest);

// Every built-in recipe has a doc page and both fixtures, and names a finding that proposes it.
TEST(RecipeCatalogue, EveryRecipeHasDocAndFixtures) {
  fs::path root(TRITONDX_SOURCE_DIR);
  for (const auto& recipe : recipes().recipes()) {
    std::string id(recipe->id());
    EXPECT_TRUE(fs::exists(root / "docs" / "recipes" / (id + ".md"))) << id << ": no doc page";
    bool applies = false, refuses = false, expected = false;
    fs::path dir = root / "tests" / "recipes" / id;
    if (fs::exists(dir))
      for (const auto& f : fs::directory_iterator(dir)) {
        auto n = f.path().filename().string();
        expected |= n.find(".expected.py") != std::string::npos;
        applies |= n.rfind("applies", 0) == 0 && n.find(".expected.") == std::string::npos;
        refuses |= n.rfind("refuses", 0) == 0;
      }
    EXPECT_TRUE(applies && expected) << id << ": no applies fixture with its .expected.py in " << dir;
    EXPECT_TRUE(refuses) << id << ": no refuses fixture in " << dir;
    EXPECT_FALSE(recipe->description().empty()) << id;
  }
  EXPECT_GE(recipes().recipes().size(), 15u);
}

// A rule can propose only ids in kRecipeIds (RecipeId checks literals at compile time), so the
// list must be exactly the catalogue: no id without its recipe, no recipe missing from the list.
TEST(RecipeCatalogue, ProposableIdsAreTheCatalogue) {
  std::set<std::string> listed, built;
  for (std::string_view id : kRecipeIds) EXPECT_TRUE(listed.insert(std::string(id)).second) << id << " listed twice";
  for (const auto& recipe : recipes().recipes()) built.insert(std::string(recipe->id()));
  for (const auto& id : listed) EXPECT_TRUE(built.count(id)) << id << ": listed in kRecipeIds, but no recipe has it";
  for (const auto& id : built) EXPECT_TRUE(listed.count(id)) << id << ": a recipe missing from kRecipeIds";
  EXPECT_FALSE(RecipeId::parse("block-per-program")) << "an id that never existed parses";
  EXPECT_TRUE(RecipeId::parse("")->empty());
}

// Every recipe a rule's source names is listed on the rule's doc page (docs/rules/<level>/<name>.md),
// so a reader of the page knows which rewrites its findings lead to.
TEST(RecipeCatalogue, RuleDocsListTheRecipesTheRuleProposes) {
  fs::path root(TRITONDX_SOURCE_DIR);
  const std::map<std::string, std::string> folders = {
      {"l0", "l0_triage"}, {"l1", "l1_profile"}, {"l2", "l2_attribution"}, {"l3", "l3_compiler"}};
  int checked = 0;
  for (const auto& [level, folder] : folders) {
    for (const auto& doc : fs::directory_iterator(root / "docs" / "rules" / level)) {
      if (doc.path().extension() != ".md") continue;
      std::string stem = doc.path().stem().string();
      std::string file = stem;
      std::replace(file.begin(), file.end(), '-', '_');
      fs::path source = root / "src" / "tritondx" / "ladder" / folder / (file + ".cpp");
      if (!fs::exists(source)) continue;
      std::string code = read_file(source), page = read_file(doc.path());
      ++checked;
      for (std::string_view id : kRecipeIds)
        if (code.find("\"" + std::string(id) + "\"") != std::string::npos)
          EXPECT_NE(page.find(std::string(id)), std::string::npos)
              << doc.path().string() << " does not name " << id << ", which " << source.filename().string()
              << " proposes";
    }
  }
  EXPECT_GE(checked, 40);
}

}  // namespace
}  // namespace tdx
