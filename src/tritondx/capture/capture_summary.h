// What `tritondx capture` found in a program (its capture.json, written by the bridge's
// program_capture.py): the kernels ranked by their share, the task written for each top one,
// and why the others got none. Rendered as the terminal table the command prints.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tdx {

struct CapturedKernel {
  int rank = 0;
  std::string name;
  std::string origin;  // file:line, and the package and its version when it comes from one
  long long calls = 0;
  int configs = 0;     // distinct launch configurations (shapes, scalars, constexprs, grid)
  double share = 0;    // of the ranking's total (static cost without a GPU, GPU time with one)
  double gpu_ms = -1;  // total GPU time, when measured
  std::string main_shapes;  // the most frequent configuration's tensor shapes
  std::string task;         // the task file written, or empty
  std::string skipped;      // why no task was written
  int test_shapes = 0;
  std::vector<std::string> notes;
};

struct CaptureSummary {
  std::vector<std::string> program;
  bool gpu = false;
  std::string ranking;  // what the share is a share of
  int exit_status = 0;
  std::string error;    // the program's own failure ("" when it ran to its end)
  long long launches = 0;
  std::vector<CapturedKernel> kernels;
  std::vector<std::string> host_reads;  // values read back from tensors a kernel was given (no GPU)
  std::string problem;                  // a KernelBench problem: its file and the reference check, in words
};

std::expected<CaptureSummary, std::string> parse_capture_summary(const nlohmann::json& j);

// The table and notes `tritondx capture` prints, ending with the optimize command to run next.
std::string render_capture_summary(const CaptureSummary& s, const std::string& out_dir);

}  // namespace tdx
