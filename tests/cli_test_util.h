// Shared by the tests that run the tritondx binary: fresh output folders, reading what it
// wrote, and running it with a generous timeout.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tritondx/bridge/subprocess.h"

namespace tdx::cli_test {

inline std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// An empty folder <tmp>/<suite>/<name>, whatever an earlier run left there.
inline std::filesystem::path fresh_dir(const std::string& suite, const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / suite / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// <tmp>/<suite>/<TestSuite.Test> for the running test, created and kept between its runs.
inline std::filesystem::path test_dir(const std::string& suite) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / suite / (std::string(test->test_suite_name()) + "." + test->name());
  std::filesystem::create_directories(dir);
  return dir;
}

// `env` is added to the test's environment.
inline ProcessResult run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  ProcessOptions options;
  options.timeout = std::chrono::minutes(8);
  options.env = env;
  return run_process(args, "", options);
}

// tools/check_html.py on `file`: html5lib's strict parser (the HTML standard's parsing algorithm)
// and the page structure every report must have. Exit 0 and no output when the page passes.
inline ProcessResult check_html(const std::filesystem::path& file) {
  return run({std::string(TRITONDX_SOURCE_DIR) + "/.venv/bin/python", std::string(TRITONDX_SOURCE_DIR) + "/tools/check_html.py",
              file.string()});
}

// The environment that answers the bridge's GPU verbs with the stand-in GPU
// (tests/optimize/gpu_stand_in.py), plus `extra` (STAND_IN_* settings).
inline std::map<std::string, std::string> stand_in_gpu(std::map<std::string, std::string> extra = {}) {
  extra["TRITONDX_PYTHON"] = std::string(TRITONDX_SOURCE_DIR) + "/tests/optimize/gpu_stand_in.py";
  extra["STAND_IN_PYTHON"] = std::string(TRITONDX_SOURCE_DIR) + "/.venv/bin/python";
  return extra;
}

}  // namespace tdx::cli_test
