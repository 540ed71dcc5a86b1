// --resume: what resume_state() keeps and hands back, and the crash test: a child process
// writes candidates as the optimize loop does and is SIGKILLed at random moments; after every
// kill the file must be intact and hold at most one incomplete candidate.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store_test_util.h"

namespace tdx {
namespace {

using store_test::sample_candidate;
using store_test::sample_finding;
using store_test::sample_run;
using store_test::TempDir;

constexpr int kFindingsPerCandidate = 3;
constexpr int kLinksPerFinding = 2;
const std::string kTaskText = "# the task file\n@triton.jit\ndef softmax_kernel(): pass\n";

// One candidate's evaluation as the optimize loop writes it: five transactions.
bool evaluate(Store& store, long long id) {
  std::vector<Finding> findings;
  for (int i = 0; i < kFindingsPerCandidate; ++i)
    findings.push_back(sample_finding("l2-rule-" + std::to_string(i), kLinksPerFinding));
  MeasurementRow timing{"timing", "NVIDIA H200", 0.5, 0.4, 0.6, 100, true, {{"id", id}}};
  return store.set_candidate_status(id, CandidateStatus::Evaluating) &&
         store.add_findings(id, findings) && store.add_measurement(id, timing) &&
         store.set_candidate_status(id, CandidateStatus::Verified);
}

std::string candidate_source(std::size_t n) {
  return "# candidate " + std::to_string(n) + "\n" + std::string(4096, 'x') + "\n";
}

// The child: resume the run if there is one, redo what was in flight, then add and evaluate
// candidates until killed. Exits (never returns) with a code naming the failed step.
[[noreturn]] void optimize_until_killed(const std::string& path) {
  auto store = Store::open(path);
  if (!store) _exit(10);
  RunInfo info = sample_run(kTaskText);
  auto latest = store->latest_unfinished_run(info.task_sha256, info.kernel);
  if (!latest) _exit(11);
  long long run = 0;
  std::optional<long long> original;
  std::size_t count = 0;
  if (*latest) {
    run = (*latest)->id;
    auto state = store->resume_state(run);
    if (!state) _exit(12);
    for (const auto& c : state->redo)
      if (!evaluate(*store, c.id)) _exit(13);
    for (const auto* list : {&state->finished, &state->redo})
      for (const auto& c : *list)
        if (!c.parent_id) original = c.id;
    count = state->finished.size() + state->redo.size();
  } else {
    auto id = store->begin_run(info);
    if (!id) _exit(14);
    run = *id;
  }
  if (!original) {
    auto id = store->add_candidate(run, std::nullopt, 0, sample_candidate(candidate_source(count++), "original"));
    if (!id || !evaluate(*store, *id)) _exit(15);
    original = *id;
  }
  for (;;) {
    auto id = store->add_candidate(run, original, 1, sample_candidate(candidate_source(count++)));
    if (!id || !evaluate(*store, *id)) _exit(16);
  }
}

struct CheckResult {
  int verified = 0;
  int incomplete = 0;
};

// After a kill: the file is intact, every finished candidate is complete, at most one is not.
CheckResult check_after_kill(const std::string& path) {
  CheckResult result;
  auto store = Store::open(path);
  if (!store) {
    ADD_FAILURE() << "reopen: " << store.error().to_string();
    return result;
  }
  EXPECT_EQ(*store->check_integrity(), "ok");
  EXPECT_LE(store->db().execAndGet("SELECT count(*) FROM runs").getInt(), 1);
  RunInfo info = sample_run(kTaskText);
  auto latest = store->latest_unfinished_run(info.task_sha256, info.kernel);
  if (!latest || !*latest) return result;  // killed before the run began
  auto candidates = store->candidates((*latest)->id);
  if (!candidates) {
    ADD_FAILURE() << candidates.error().to_string();
    return result;
  }
  for (const CandidateRecord& c : *candidates) {
    auto findings = store->findings(c.id);
    auto measurements = store->measurements(c.id);
    EXPECT_TRUE(findings && measurements);
    if (!findings || !measurements) continue;
    for (const Finding& f : *findings) EXPECT_EQ(f.evidence.size(), std::size_t(kLinksPerFinding));
    EXPECT_EQ(c.candidate.source, candidate_source(c.id - (*candidates)[0].id));
    if (is_finished(c.status)) {
      ++result.verified;
      EXPECT_EQ(c.status, CandidateStatus::Verified) << c.id;
      EXPECT_EQ(findings->size(), std::size_t(kFindingsPerCandidate)) << c.id;
      EXPECT_EQ(measurements->size(), 1u) << c.id;
      if (measurements->size() == 1) {
        EXPECT_EQ((*measurements)[0].row.median_ms, 0.5);
      }
    } else {
      ++result.incomplete;
      EXPECT_TRUE(findings->empty() || findings->size() == std::size_t(kFindingsPerCandidate)) << c.id;
      EXPECT_LE(measurements->size(), 1u) << c.id;
    }
  }
  EXPECT_LE(result.incomplete, 1) << "more than the one candidate in flight is incomplete";
  return result;
}

TEST(StoreResume, KeepsFinishedAndResetsInFlightCandidates) {
  TempDir dir;
  auto opened = Store::open(dir.file("t.db"));
  ASSERT_TRUE(opened) << opened.error().to_string();
  Store& store = *opened;
  long long run = *store.begin_run(sample_run());
  long long o = *store.add_candidate(run, std::nullopt, 0, sample_candidate("o", "original"));
  ASSERT_TRUE(evaluate(store, o));
  long long rejected = *store.add_candidate(run, o, 1, sample_candidate("r"));
  ASSERT_TRUE(store.set_candidate_status(rejected, CandidateStatus::Rejected, "verify", "wrong"));
  long long in_flight = *store.add_candidate(run, o, 1, sample_candidate("f"));
  ASSERT_TRUE(store.set_candidate_status(in_flight, CandidateStatus::Evaluating));
  ASSERT_TRUE(store.add_findings(in_flight, {sample_finding("l2-partial")}));
  ASSERT_TRUE(store.add_measurement(in_flight, {"compile", "", {}, {}, {}, {}, true, nullptr}));
  ASSERT_TRUE(store.add_llm_call(run, in_flight, {{"status", "ok"}, {"prompt_tokens", 7}}));
  long long queued = *store.add_candidate(run, o, 1, sample_candidate("q"));

  auto state = store.resume_state(run);
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(state->run.id, run);
  EXPECT_EQ(state->run.status, RunStatus::Running);
  ASSERT_EQ(state->finished.size(), 2u);
  EXPECT_EQ(state->finished[0].id, o);
  EXPECT_EQ(state->finished[1].id, rejected);
  ASSERT_EQ(state->redo.size(), 2u);
  EXPECT_EQ(state->redo[0].id, in_flight);
  EXPECT_EQ(state->redo[0].status, CandidateStatus::Proposed);
  EXPECT_EQ(state->redo[0].restarts, 1);
  EXPECT_EQ(state->redo[0].candidate.source, "f");
  EXPECT_EQ(state->redo[1].id, queued);
  EXPECT_EQ(state->redo[1].restarts, 0);
  EXPECT_TRUE(store.findings(in_flight)->empty());
  EXPECT_TRUE(store.measurements(in_flight)->empty());
  EXPECT_EQ(store.findings(o)->size(), std::size_t(kFindingsPerCandidate));
  EXPECT_EQ(state->llm_usage.calls, 1);  // the tokens were spent: the call stays
  EXPECT_EQ(state->llm_usage.prompt_tokens, 7);

  // Evaluating it again works; a second resume finds nothing left in flight but the queued one.
  ASSERT_TRUE(evaluate(store, in_flight));
  auto again = store.resume_state(run);
  ASSERT_TRUE(again);
  ASSERT_EQ(again->redo.size(), 1u);
  EXPECT_EQ(again->redo[0].id, queued);
}

TEST(StoreResume, InterruptedRunIsFoundAndReopened) {
  TempDir dir;
  auto store = Store::open(dir.file("t.db"));
  ASSERT_TRUE(store);
  RunInfo info = sample_run();
  long long run = *store->begin_run(info);
  ASSERT_TRUE(store->finish_run(run, RunStatus::Interrupted));
  EXPECT_TRUE(store->run(run)->finished_at);
  auto latest = store->latest_unfinished_run(info.task_sha256, info.kernel);
  ASSERT_TRUE(latest && *latest);
  EXPECT_EQ((*latest)->status, RunStatus::Interrupted);
  auto state = store->resume_state(run);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->run.status, RunStatus::Running);
  EXPECT_FALSE(state->run.finished_at);
  ASSERT_TRUE(store->finish_run(run, RunStatus::Finished));
  auto refused = store->resume_state(run);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("finished"), std::string::npos);
  EXPECT_FALSE(store->resume_state(9999));
}

TEST(StoreResume, SigkillAtRandomMomentsLosesAtMostTheCandidateInFlight) {
  TempDir dir;
  const std::string path = dir.file("crash.db");
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_us(1'000, 60'000);
  constexpr int kRounds = 14;
  int verified_before = 0, kills_mid_candidate = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) optimize_until_killed(path);
    // The last round runs long enough that the loop surely gets past its start.
    usleep(round == kRounds - 1 ? 300'000 : delay_us(rng));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "round " << round << ": the child stopped by itself, exit code "
        << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CheckResult r = check_after_kill(path);
    EXPECT_GE(r.verified, verified_before) << "round " << round << ": a committed candidate was lost";
    verified_before = r.verified;
    kills_mid_candidate += r.incomplete;
    if (HasFailure()) break;
  }
  EXPECT_GT(verified_before, 0);
  std::printf("crash test: %d rounds, %d verified candidates, %d kills left a candidate in flight\n",
              kRounds, verified_before, kills_mid_candidate);
}

}  // namespace
}  // namespace tdx
