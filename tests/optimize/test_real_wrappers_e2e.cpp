// Real wrappers and tasks without `reference`, through the tritondx binary (issue 23): a wrapper
// that checks for CUDA and allocates on "cuda" is diagnosed, inspected and optimized without a
// GPU; with a (stand-in) GPU every candidate is verified against the frozen copy of the initial
// kernel, and the report says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../cli_test_util.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;
using cli_test::read;
using cli_test::run;

const std::string kTask = std::string(TRITONDX_FIXTURES_DIR) + "/initial_reference/softmax_wrapped.py";

fs::path fresh_dir(const std::string& name) { return cli_test::fresh_dir("tritondx-real-wrappers", name); }

TEST(RealWrappersE2E, DiagnoseAndInspectSayWhatWasEmulated) {
  auto d = run({TRITONDX_BINARY, "diagnose", kTask, "--format", "json"});
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  auto diagnosis = nlohmann::json::parse(d.out);
  ASSERT_FALSE(diagnosis["kernels"].empty());
  EXPECT_EQ(diagnosis["kernels"][0]["name"], "_softmax_fwd_kernel");
  bool noted = false;
  for (const auto& p : diagnosis["problems"])
    noted |= p.get<std::string>().find("CUDA emulated for it (Tensor.device, Tensor.is_cuda, empty(device=cuda), "
                                       "torch.cuda.device)") != std::string::npos;
  EXPECT_TRUE(noted) << diagnosis["problems"].dump(2);

  auto i = run({TRITONDX_BINARY, "inspect", kTask});
  ASSERT_EQ(i.exit_code, 0) << i.out << i.err;
  EXPECT_NE(i.out.find("note: launch() was captured on CPU tensors with CUDA emulated"), std::string::npos) << i.out;
}

TEST(RealWrappersE2E, OptimizeWithoutAGpuCompilesAndRediagnosesCandidates) {
  fs::path out = fresh_dir("cpu");
  auto r = run({TRITONDX_BINARY, "optimize", kTask, "--gpu", "off", "--max-candidates", "2", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto report = nlohmann::json::parse(read(out / "report.json"));
  ASSERT_EQ(report["candidates"].size(), 3u) << report.dump(2);
  for (const auto& c : report["candidates"])
    EXPECT_NE(c.value("status", ""), "rejected") << c.dump(2);
}

TEST(RealWrappersE2E, EveryCandidateIsVerifiedAgainstTheFrozenInitialKernel) {
  fs::path out = fresh_dir("stand_in");
  fs::path log = out / "requests.jsonl";
  auto r = run({TRITONDX_BINARY, "optimize", kTask, "--gpu", "on", "--no-profile", "--max-candidates", "2", "--out",
                out.string()},
               cli_test::stand_in_gpu({{"STAND_IN_REQUEST_LOG", log.string()}}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path frozen = out / "candidates" / "c1.py";
  ASSERT_TRUE(fs::exists(frozen));
  EXPECT_EQ(read(frozen), read(kTask));

  std::istringstream lines(read(log));
  int candidate_runs = 0, sweeps = 0;
  for (std::string line; std::getline(lines, line);) {
    auto entry = nlohmann::json::parse(line);
    const auto& request = entry["request"];
    if (entry["verb"] == "run" && request["task"] == frozen.string()) {
      EXPECT_FALSE(request.contains("initial_task")) << line;  // the original is checked on its own
    } else if (entry["verb"] == "run") {
      ++candidate_runs;
      EXPECT_EQ(request.value("initial_task", ""), frozen.string()) << line;
      EXPECT_EQ(request["integrity"].value("original", ""), frozen.string()) << line;
    } else if (entry["verb"] == "sweep") {
      ++sweeps;
      EXPECT_EQ(request.value("initial_task", ""), frozen.string()) << line;
    }
  }
  EXPECT_GE(candidate_runs, 2);  // the two candidates, and the launch tuning's winner
  EXPECT_GE(sweeps, 1);  // the launch tuning's variants
  EXPECT_NE(read(out / "report.md").find("- Verified against: the initial kernel (a frozen copy of the task"),
            std::string::npos)
      << read(out / "report.md");
}

}  // namespace
}  // namespace tdx
