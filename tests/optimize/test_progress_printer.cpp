// optimize's progress: the candidate line, and on a terminal the status line redrawn under it.
#include <gtest/gtest.h>

#include <sstream>

#include "tritondx/optimize/progress_printer.h"

namespace tdx {
namespace {

CandidateProgress progress_of(long long id, std::string recipe) {
  CandidateProgress p;
  p.id = id;
  p.recipe = std::move(recipe);
  p.target_line = 21;
  p.status = "verified";
  p.result = "0.1000 ms";
  p.best_id = id;
  p.best = "1.25x measured";
  p.evaluated = static_cast<int>(id) - 1;
  p.max_candidates = 8;
  p.elapsed = 12.4;
  p.budget = 600;
  return p;
}

TEST(ProgressPrinter, PlainLinesOffATerminal) {
  std::ostringstream out;
  {
    ProgressPrinter printer(out, false, 600, 8);
    printer.candidate(progress_of(1, ""));
    printer.candidate(progress_of(2, "grow-block"));
  }
  EXPECT_EQ(out.str(),
            "[   12 s] candidate   1: the original kernel: verified, 0.1000 ms\n"
            "[   12 s] candidate   2: grow-block on line 21: verified, 0.1000 ms | best: candidate 2 (1.25x measured)\n");
}

TEST(ProgressPrinter, OnATerminalAStatusLineFollowsEachLineAndIsClearedAtTheEnd) {
  std::ostringstream out;
  {
    ProgressPrinter printer(out, true, 600, 8);
    printer.candidate(progress_of(2, "grow-block"));
  }
  const std::string s = out.str();
  const size_t line = s.find("candidate   2: grow-block on line 21");
  ASSERT_NE(line, std::string::npos) << s;
  const size_t status = s.find("optimize [", line);
  ASSERT_NE(status, std::string::npos) << s;
  EXPECT_NE(s.find("of 600 s, 1 of 8 candidates, best: candidate 2 (1.25x measured)", status), std::string::npos) << s;
  EXPECT_EQ(s.substr(s.size() - 5), "\r\x1b[2K");  // the status line is cleared when the run ends
}

}  // namespace
}  // namespace tdx
