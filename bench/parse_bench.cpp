// Parsing speed and memory: every stage of the largest fixture (a 128x128x64 fp16 matmul with
// a fused epilogue: 325 KB of LLVM IR, a 75,000-line per-pass dump), as tritondx parses them.
// Targets (issue 2): all stages plus the pass dump under 100 ms, under 200 MB peak.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/ir/program.h"
#include "tritondx/ir/source_map.h"

namespace tdx {
namespace {

const std::string kDir = std::string(TRITONDX_FIXTURES_DIR) + "/triton-3.6.0/large_matmul/";
const std::string kStem = kDir + "matmul_bias_gelu_kernel";

const std::string& text(const std::string& ext) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(ext);
  if (it == cache.end()) {
    auto t = read_file(kStem + ext, Stage::Source);
    if (!t) throw std::runtime_error(t.error().to_string());
    it = cache.emplace(ext, std::move(*t)).first;
  }
  return it->second;
}

void set_bytes(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_ParseTtir(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_mlir(text(".ttir"), Stage::Ttir));
  set_bytes(state, text(".ttir").size());
}
void BM_ParseTtgir(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_mlir(text(".ttgir"), Stage::Ttgir));
  set_bytes(state, text(".ttgir").size());
}
void BM_ParseLlvmIr(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_llvm_ir(text(".llir")));
  set_bytes(state, text(".llir").size());
}
void BM_ParsePtx(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_ptx(text(".ptx")));
  set_bytes(state, text(".ptx").size());
}
void BM_ParseSass(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_sass(text(".sass")));
  set_bytes(state, text(".sass").size());
}
void BM_SplitPassDump(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(split_pass_dump(text(".passes.txt.gz")));
  set_bytes(state, text(".passes.txt.gz").size());
}

// The whole job `inspect --pass-dumps` does in C++: read and parse every stage, build the
// source map, replay axis info. Reports peak resident memory of the process.
void BM_LoadProgramAllStages(benchmark::State& state) {
  CompiledKernel k;
  k.name = "matmul_bias_gelu_kernel";
  for (const char* stage : {"ttir", "ttgir", "llir", "ptx", "sass"}) k.files[stage] = kStem + "." + stage;
  k.files["passes"] = kStem + ".passes.txt.gz";
  for (auto _ : state) {
    Program p = load_program(k);
    if (!p.problems.empty()) state.SkipWithError(p.problems.front().to_string().c_str());
    SourceMap map = SourceMap::build(p, "large_matmul.py");
    auto axis = AxisInfoAnalysis::run(*p.ttgir);
    benchmark::DoNotOptimize(map);
    benchmark::DoNotOptimize(axis);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

BENCHMARK(BM_ParseTtir)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseTtgir)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseLlvmIr)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParsePtx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseSass)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SplitPassDump)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadProgramAllStages)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tdx

BENCHMARK_MAIN();
