// `tritondx inspect` on every example, end to end: bridge, Triton compile, parsers, report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../cli_test_util.h"
#include "run_tritondx.h"

namespace tdx::e2e {
namespace {

nlohmann::json inspect_json(const std::string& example) {
  auto r = run_tritondx({"inspect", source_path("examples/" + example), "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& only_kernel(const nlohmann::json& report) {
  EXPECT_EQ(report["kernels"].size(), 1u);
  return report["kernels"][0];
}

TEST(InspectE2E, VectorAddMasksBreakVectorization) {
  auto report = inspect_json("vector_add.py");
  EXPECT_EQ(report["schema"], "tritondx.inspect/1");
  const auto& k = only_kernel(report);
  EXPECT_EQ(k["name"], "add_kernel");
  const auto& s = k["summary"];
  EXPECT_GT(s["resources"]["registers"].get<int>(), 0);
  EXPECT_EQ(s["resources"]["spill_stores"], 0);
  EXPECT_EQ(s["occupancy"]["limiter"], "warps");
  // n = 50,000,003 is not a multiple of 16: the mask is 1 wide, so every load is 32-bit.
  int loads = 0;
  for (const auto& m : s["memory"]) {
    if (m["kind"] != "load") continue;
    ++loads;
    EXPECT_EQ(m["elements_per_thread"], 4);
    EXPECT_TRUE(m["masked"].get<bool>());
    EXPECT_TRUE(m["ptx_bits"].contains("32"));
    EXPECT_FALSE(m["ptx_bits"].contains("128"));
  }
  EXPECT_EQ(loads, 2);
  bool remark = false;
  for (const auto& r : s["remarks"]) remark |= r.get<std::string>().find("vectorization fails") != std::string::npos;
  EXPECT_TRUE(remark);
  // The per-line view maps the tl.load line (15) to TTIR, TTGIR, PTX and SASS.
  bool line15 = false;
  for (const auto& v : k["lines"]) {
    if (v["line"] != 15) continue;
    line15 = true;
    EXPECT_FALSE(v["ttir"].empty());
    EXPECT_FALSE(v["ttgir"].empty());
    EXPECT_GT(v["ptx"]["global-load"].get<int>(), 0);
    EXPECT_GT(v["sass"]["global-load"].get<int>(), 0);
  }
  EXPECT_TRUE(line15);
}

TEST(InspectE2E, SoftmaxHasThreeUnpipelinedLoops) {
  auto report = inspect_json("softmax.py");
  const auto& s = only_kernel(report)["summary"];
  ASSERT_EQ(s["loops"].size(), 3u);
  for (const auto& l : s["loops"]) EXPECT_FALSE(l["pipelined"].get<bool>());
  EXPECT_TRUE(s["dots"].empty());
}

TEST(InspectE2E, MatmulUsesWgmmaAndAPipelinedKLoop) {
  auto report = inspect_json("matmul.py");
  const auto& s = only_kernel(report)["summary"];
  ASSERT_EQ(s["dots"].size(), 1u);
  EXPECT_EQ(s["dots"][0]["mma"], "wgmma");
  EXPECT_EQ(s["dots"][0]["a"], "f16");
  EXPECT_GT(s["wgmma_ptx"].get<int>(), 0);
  EXPECT_GT(s["async_copies_ptx"].get<int>(), 0);
  ASSERT_EQ(s["loops"].size(), 1u);
  EXPECT_TRUE(s["loops"][0]["pipelined"].get<bool>());
  EXPECT_GT(s["resources"]["shared_bytes"].get<int>(), 0);
}

TEST(InspectE2E, TextAndHtmlFormats) {
  auto text = run_tritondx({"inspect", source_path("examples/vector_add.py")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("kernel add_kernel"), std::string::npos);
  EXPECT_NE(text.out.find("occupancy"), std::string::npos);
  EXPECT_NE(text.out.find("tl.load(x_ptr + offsets, mask=mask)"), std::string::npos);
  auto html = run_tritondx({"inspect", source_path("examples/vector_add.py"), "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.out.find("<table>"), std::string::npos);
  EXPECT_NE(html.out.find("</html>"), std::string::npos);
  const auto page = std::filesystem::temp_directory_path() / "tritondx-inspect-e2e.html";
  std::ofstream(page) << html.out;
  auto checked = cli_test::check_html(page);
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

// diagnose's HTML page (the source beside its IR, findings inline) is a page the strict parser
// accepts, with header cells in its tables.
TEST(DiagnoseE2E, HtmlPagePassesTheStrictParser) {
  auto html = run_tritondx({"diagnose", source_path("examples/softmax.py"), "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<th>line</th>"), std::string::npos);
  const auto page = std::filesystem::temp_directory_path() / "tritondx-diagnose-e2e.html";
  std::ofstream(page) << html.out;
  auto checked = cli_test::check_html(page);
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

TEST(InspectE2E, UnknownKernelNameIsAnError) {
  auto r = run_tritondx({"inspect", source_path("examples/vector_add.py"), "--kernel", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no kernel named 'nope'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("add_kernel"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tdx::e2e
