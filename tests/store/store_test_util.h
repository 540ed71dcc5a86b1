// Shared by the store tests: a temporary directory and sample candidates and findings.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/ladder/finding.h"
#include "tritondx/rewrite/candidate.h"
#include "tritondx/store/sha256.h"
#include "tritondx/store/store.h"

namespace tdx::store_test {

// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tdx-store-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline RunInfo sample_run(const std::string& task_text = "def kernel(): pass\n") {
  RunInfo info;
  info.task_path = "examples/softmax.py";
  info.task_sha256 = sha256_hex(task_text);
  info.kernel = "softmax_kernel";
  info.options = {{"budget", 20}, {"llm", false}};
  info.target = "sm_90";
  info.device = "NVIDIA H200";
  info.note = "test";
  return info;
}

inline Candidate sample_candidate(const std::string& source, const std::string& rewriter = "recipe") {
  Candidate c;
  c.source = source;
  c.rewriter = rewriter;
  c.recipe = rewriter == "recipe" ? "exp-to-exp2" : "";
  c.kernel = "softmax_kernel";
  c.targets = {"l0-exp-not-exp2"};
  c.target_loc = {"softmax.py", 12, 5};
  c.description = "use exp2 with a log2(e) factor";
  c.params = {{"axis", 1}};
  c.diff = "--- a\n+++ b\n@@ -12 +12 @@\n-tl.exp(x)\n+tl.exp2(x * 1.4427)\n";
  return c;
}

inline Finding sample_finding(const std::string& rule_id, int evidence_links = 2) {
  Finding f;
  f.rule_id = rule_id;
  f.level = Level::L2;
  f.kernel = "softmax_kernel";
  f.loc = {"softmax.py", 14, 9};
  f.symptom = "scalar global loads";
  f.cause = "contiguity lost at tt.addptr";
  f.confidence = 0.8;
  f.estimated_gain = 1.7;
  for (int i = 0; i < evidence_links; ++i)
    f.evidence.push_back({i == 0 ? Stage::Ttgir : Stage::Ptx, {"softmax.py", 14, 9}, 100 + i,
                          "ld.global.b32 %r1, [%rd2];", "link " + std::to_string(i)});
  f.proposals.push_back({"add-multiple-of-hint", "add tl.multiple_of", {{"value", 16}}});
  return f;
}

}  // namespace tdx::store_test
