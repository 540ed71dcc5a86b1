// Replays the inputs that broke a parser under scripts/fuzz.sh (fuzz/regressions/<target>/):
// each must now give a result or a diagnostic that keeps the parsers' contract (fuzz/contract.h).
// (Here, not in tests/unit, because the LLM reply parser is part of the optimizer's engine.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../../fuzz/contract.h"
#include "../cli_test_util.h"
#include "../../fuzz/targets.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

const fs::path kRegressions = fs::path(TRITONDX_SOURCE_DIR) / "fuzz" / "regressions";

TEST(FuzzRegressions, EveryFoundInputKeepsTheContract) {
  int replayed = 0;
  for (const auto& target : fuzz::targets()) {
    fs::path dir = kRegressions / target.name;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::string input = cli_test::read(entry.path());
      auto error = target.run(input);
      if (error) {
        const char* breach = fuzz::contract_breach(*error, target.stage, input);
        EXPECT_EQ(breach, nullptr) << entry.path() << ": " << (breach ? breach : "") << ": " << error->to_string();
      }
      ++replayed;
    }
  }
  EXPECT_GT(replayed, 0) << "no regression inputs under " << kRegressions;
}

TEST(FuzzRegressions, EveryTargetRejectsTextThatIsNotItsFormat) {
  // Not a crash and not silence: a clear error for a line of prose, from each parser that has
  // something to require (the SASS and reply parsers accept any text as "nothing found").
  for (const auto& target : fuzz::targets()) {
    std::string input = "this is not a kernel\n";
    auto error = target.run(input);
    if (!error) continue;
    EXPECT_EQ(fuzz::contract_breach(*error, target.stage, input), nullptr) << target.name << ": " << error->to_string();
  }
}

}  // namespace
}  // namespace tdx
