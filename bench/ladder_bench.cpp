// The diagnosis ladder's own cost, without Triton: L0 rules on the captured launch and AST
// (target: under 50 ms per example), and L2 rules plus the static roofline model on the
// parsed stages. The bridge's work (Python start, Triton compiles) is measured separately
// by timing `tritondx diagnose` end to end (see README).
#include <benchmark/benchmark.h>

#include <fstream>

#include "tritondx/analysis/static_cost.h"
#include "tritondx/ladder/ladder.h"
#include "tritondx/ladder/session.h"

namespace tdx {
namespace {

nlohmann::json load_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

const std::string kFixtures = std::string(TRITONDX_FIXTURES_DIR) + "/triton-3.6.0/";

void BM_L0Rules(benchmark::State& state, const std::string& task) {
  auto capture = load_json(kFixtures + task + "/capture.json");
  RuleRegistry registry;
  register_all_rules(registry);
  size_t findings = 0;
  for (auto _ : state) {
    SessionOptions options;
    options.artifacts_dir = "/tmp/tritondx-bench";
    auto session = DiagnosisSession::from_capture(capture, options);
    if (!session) {
      state.SkipWithError(session.error().diagnostic.to_string().c_str());
      return;
    }
    std::vector<RuleFailure> failures;
    findings = 0;
    for (const auto& ctx : (*session)->contexts())
      for (const Rule* rule : registry.at_level(Level::L0))
        findings += DiagnosisSession::run_rule(*rule, ctx, failures).size();
  }
  state.counters["findings"] = static_cast<double>(findings);
}

BENCHMARK_CAPTURE(BM_L0Rules, vector_add, std::string("vector_add"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_L0Rules, softmax, std::string("softmax"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_L0Rules, matmul, std::string("matmul"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_L0Rules, large_matmul, std::string("large_matmul"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tdx

BENCHMARK_MAIN();
