// `tritondx capture --gpu off -- python PROGRAM`: the program's output passes through, the table
// ranks its kernels, the tasks it writes run through `tritondx diagnose`, and a failing or empty
// program and a missing one get clear errors (tests/fixtures/capture/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../cli_test_util.h"
#include "run_tritondx.h"
#include "tritondx/capture/capture_summary.h"
#include "tritondx/capture/program_gain.h"

namespace tdx::e2e {
namespace {

namespace fs = std::filesystem;
using cli_test::read;

std::string program() { return std::string(TRITONDX_FIXTURES_DIR) + "/capture/train_step.py"; }

TEST(CaptureE2E, ProgramKernelsBecomeRankedDiagnosableTasks) {
  fs::path out = cli_test::fresh_dir("tritondx-capture", "program");
  auto r = run_tritondx({"capture", "--gpu", "off", "--out", out.string(), "--", "python", program(), "--steps", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("captured 8 launch(es) of 3 Triton kernel(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no GPU: nothing ran, so there are no times; static cost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   1  scaled_square_kernel"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find((out / "row_sum_kernel.py").string() + " (+3 test shape(s))"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tritondx optimize " + out.string() + "/*.py"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read(out / "capture.json"));
  EXPECT_EQ(j["program"][0], program());
  auto diagnosed = run_tritondx({"diagnose", (out / "scaled_square_kernel.py").string(), "--max-level", "2"});
  EXPECT_EQ(diagnosed.exit_code, 0) << diagnosed.out << diagnosed.err;
  EXPECT_NE(diagnosed.out.find("kernel scaled_square_kernel"), std::string::npos) << diagnosed.out;

  // Optimizing two of the captured tasks writes what the program gains (here: nothing measured).
  fs::path optimized = cli_test::fresh_dir("tritondx-capture", "program-optimized");
  auto o = run_tritondx({"optimize", "--gpu", "off", "--max-candidates", "1", "--out", optimized.string(),
                         (out / "scaled_square_kernel.py").string(), (out / "row_sum_kernel.py").string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("what the program gains"), std::string::npos) << o.out;
  auto gain = nlohmann::json::parse(read(optimized / "program-gain.json"));
  ASSERT_EQ(gain["kernels"].size(), 2u) << gain.dump();
  EXPECT_EQ(gain["kernels"][0]["status"], "not measured (no GPU)") << gain.dump();
  EXPECT_TRUE(gain["speedup"].is_null()) << gain.dump();
}

TEST(CaptureE2E, FailingEmptyAndMissingProgramsAreClearErrors) {
  fs::path dir = cli_test::fresh_dir("tritondx-capture", "bad");
  std::ofstream(dir / "fails.py") << "import sys\nsys.path.insert(0, '" << TRITONDX_FIXTURES_DIR
                                  << "/capture')\nimport torch, toy_kernels\n"
                                     "toy_kernels.scaled_square(torch.randn(4096, device='cuda'))\n"
                                     "raise ValueError('the model diverged')\n";
  auto r = run_tritondx({"capture", "--gpu", "off", "--out", (dir / "out").string(), "--", (dir / "fails.py").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the program failed: ValueError: the model diverged (at " + (dir / "fails.py").string() + ":5)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the 1 launch(es) before it are in"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "scaled_square_kernel.py"));

  std::ofstream(dir / "plain.py") << "print('hello from the program')\n";
  r = run_tritondx({"capture", "--gpu", "off", "--out", (dir / "plain").string(), "--", (dir / "plain.py").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("hello from the program"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("the program launched no Triton kernel"), std::string::npos) << r.err;

  std::ofstream(dir / "bad.py") << "import torch, triton, triton.language as tl\nSCALE = 0.5\n"
                                  "@triton.jit\ndef bad_kernel(x_ptr, BLOCK: tl.constexpr):\n"
                                  "    offs = tl.arange(0, BLOCK)\n"
                                  "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * SCALE)\n"
                                  "bad_kernel[(1,)](torch.randn(256, device='cuda'), BLOCK=256)\n";
  r = run_tritondx({"capture", "--gpu", "off", "--out", (dir / "bad").string(), "--", (dir / "bad.py").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("- (does not compile for sm_90: CompilationError"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no task was written"), std::string::npos) << r.err;

  r = run_tritondx({"capture", "--gpu", "off", "--", (dir / "missing.py").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such program file"), std::string::npos) << r.err;
  r = run_tritondx({"capture", "--gpu", "sometimes", "--", (dir / "plain.py").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// A KernelBench problem: torch.compile's kernels of its Model are the tasks, the eager Model the
// reference (not run without a GPU, and the table says so).
TEST(CaptureE2E, KernelBenchProblemKernelsBecomeTasks) {
  fs::path out = cli_test::fresh_dir("tritondx-capture", "kernelbench");
  std::string problem = std::string(TRITONDX_SOURCE_DIR) + "/examples/kernelbench/softmax_temperature.py";
  auto r = run_tritondx({"capture", "--gpu", "off", "--out", out.string(), "--kernelbench", problem});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("KernelBench problem " + problem + ": reference Model (eager PyTorch)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("compiled vs reference: not run: without a GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch.compile (Inductor) (torch "), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read(out / "capture.json"));
  ASSERT_FALSE(j["kernels"].empty());
  std::string task = j["kernels"][0]["task"].get<std::string>();
  auto diagnosed = run_tritondx({"diagnose", task, "--max-level", "2"});
  EXPECT_EQ(diagnosed.exit_code, 0) << diagnosed.out << diagnosed.err;

  r = run_tritondx({"capture", "--gpu", "off", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give either a program after -- or --kernelbench PROBLEM"), std::string::npos) << r.err;
}

TEST(CaptureSummary, MalformedSummariesAreRefusedWithTheReason) {
  EXPECT_FALSE(parse_capture_summary(nlohmann::json::parse(R"({"program": []})")).has_value());
  auto bad = parse_capture_summary(nlohmann::json::parse(R"({"kernels": [{"kernel": 3}]})"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().find("capture.json is malformed"), std::string::npos) << bad.error();
  auto gpu = parse_capture_summary(nlohmann::json::parse(
      R"({"gpu": true, "kernels": [{"rank": 1, "kernel": "k", "gpu_ms": 1.5, "share": 1.0, "task": null,
          "skipped": "launched through a compiled kernel's launcher"}]})"));
  ASSERT_TRUE(gpu.has_value());
  std::string text = render_capture_summary(*gpu, "out");
  EXPECT_NE(text.find("1.500"), std::string::npos) << text;
  EXPECT_NE(text.find("- (launched through a compiled kernel's launcher)"), std::string::npos) << text;
  EXPECT_EQ(text.find("next:"), std::string::npos) << text;  // no task written: nothing to optimize
}

// Shares 50% (2x faster), 30% (unchanged) and 20% (captured, not optimized): the kernel time
// goes to 0.25 + 0.30 + 0.20 = 0.75 of what it was, 1.33x.
TEST(CaptureSummary, ProgramGainWeighsEachKernelsSpeedupByItsShare) {
  auto capture = nlohmann::json::parse(R"({"gpu": true, "kernels": [
      {"kernel": "a", "task": "/t/a.py", "share": 0.5}, {"kernel": "b", "task": "/t/b.py", "share": 0.3},
      {"kernel": "c", "task": "/t/c.py", "share": 0.2}, {"kernel": "inductor", "task": null, "share": 0.0}]})");
  std::vector<std::pair<std::string, std::optional<nlohmann::json>>> reports{
      {"/t/a.py", nlohmann::json::parse(R"({"speedup": 2.0})")}, {"/t/b.py", nlohmann::json::parse(R"({"speedup": 1.0})")}};
  ProgramGain g = program_gain(capture, reports);
  ASSERT_EQ(g.kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(g.optimized_share, 0.8);
  ASSERT_TRUE(g.speedup.has_value());
  EXPECT_NEAR(*g.speedup, 1.0 / 0.75, 1e-12);
  EXPECT_NE(render_program_gain(g).find("1.33x faster"), std::string::npos) << render_program_gain(g);
  // A failed run has no speedup, and then the whole is not measured.
  reports[1].second.reset();
  g = program_gain(capture, reports);
  EXPECT_FALSE(g.speedup.has_value());
  EXPECT_EQ(g.kernels[1].status, "failed (see its optimize.log)");
}

}  // namespace
}  // namespace tdx::e2e
