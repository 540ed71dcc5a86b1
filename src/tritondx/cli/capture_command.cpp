#include <filesystem>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/bridge/subprocess.h"
#include "tritondx/capture/capture_summary.h"
#include "tritondx/cli/commands.h"

namespace tdx::cli {

namespace {

struct CaptureOptions {
  int top = 10;
  double min_share = 2.0;
  std::string out = "captured";
  std::string gpu = "auto";
  std::string kernelbench;  // a KernelBench problem file instead of a program
  std::vector<std::string> program;
};

int run_capture(const CaptureOptions& o) {
  namespace fs = std::filesystem;
  BridgeConfig config = BridgeConfig::from_environment();
  std::vector<std::string> argv{config.python, "-m", "tritondx_bridge.program_capture", "--out", o.out, "--top",
                                std::to_string(o.top), "--min-share", fmt::format("{}", o.min_share), "--gpu", o.gpu};
  if (o.kernelbench.empty() == o.program.empty()) {
    std::cerr << "error: capture: give either a program after -- or --kernelbench PROBLEM (one of them)\n";
    return kExitUsage;
  }
  if (!o.kernelbench.empty()) {
    argv.insert(argv.end(), {"--kernelbench", o.kernelbench});
  } else {
    argv.push_back("--");
    argv.insert(argv.end(), o.program.begin(), o.program.end());
  }
  // The user's own PYTHONPATH stays: their program imports what it imports.
  std::string python_path = config.python_path;
  if (const char* p = std::getenv("PYTHONPATH"); p && *p) python_path += std::string(":") + p;
  fs::path summary_path = fs::path(o.out) / "capture.json";
  std::error_code ec;
  fs::remove(summary_path, ec);
  int status = 0;
  try {
    status = run_attached(argv, {{"PYTHONPATH", python_path}, {"PYTHONUNBUFFERED", "1"}});
  } catch (const std::system_error& e) {
    std::cerr << "error: capture: cannot start " << config.python << ": " << e.what() << "\n";
    return kExitFailed;
  }
  if (status == kExitUsage) return kExitUsage;  // the runner said why
  std::ifstream in(summary_path);
  if (!in) {
    std::cerr << fmt::format("error: capture: the capture ended (status {}) without writing {}\n", status,
                             summary_path.string());
    return kExitFailed;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  auto summary = j.is_discarded() ? std::unexpected(std::string("capture.json is not JSON"))
                                  : parse_capture_summary(j);
  if (!summary) {
    std::cerr << "error: capture: " << summary.error() << "\n";
    return kExitFailed;
  }
  std::cout << render_capture_summary(*summary, o.out);
  if (!summary->error.empty()) {
    std::cerr << fmt::format("error: capture: the program failed: {}; the {} launch(es) before it are in {}\n",
                             summary->error, summary->launches, summary_path.string());
    return kExitFailed;
  }
  if (summary->kernels.empty()) {
    std::cerr << "error: capture: the program launched no Triton kernel\n";
    return kExitFailed;
  }
  if (std::none_of(summary->kernels.begin(), summary->kernels.end(), [](const auto& k) { return !k.task.empty(); })) {
    std::cerr << "error: capture: no task was written: the table says why each kernel got none\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

Runner add_capture_command(CLI::App& app) {
  auto o = std::make_shared<CaptureOptions>();
  auto* cmd = app.add_subcommand(
      "capture", "Run a Python program, record the Triton kernels it launches, and write the top ones as tasks");
  cmd->add_option("--top", o->top, "Tasks for at most this many kernels, by share (default 10)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--min-share", o->min_share, "Only kernels above this percent of the total (default 2)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--out", o->out, "Folder for capture.json and the task files (default: captured)");
  cmd->add_option("--gpu", o->gpu,
                  "off: run the program on CPU tensors, compile every launch, run none, and rank by static cost; "
                  "on: run it on the GPU and rank by measured GPU time; auto (default): on when a GPU is visible")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--kernelbench", o->kernelbench,
                  "A KernelBench problem (class Model, get_inputs, get_init_inputs): its Model compiled by "
                  "torch.compile is the program, its Triton kernels the tasks, the eager Model the reference")
      ->check(CLI::ExistingFile);
  cmd->add_option("program", o->program, "The program, after --: -- python my_script.py ARGS...");
  cmd->footer(
      "Examples: tritondx capture --gpu off --out captured -- python train.py --steps 2\n"
      "          tritondx capture --kernelbench problem.py --out captured");
  return [o] { return run_capture(*o); };
}

}  // namespace tdx::cli
