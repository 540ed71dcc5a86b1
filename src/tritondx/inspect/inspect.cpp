#include "tritondx/inspect/inspect.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>

#include "tritondx/compile/capture_notes.h"
#include "tritondx/core/artifacts_dir.h"
#include "tritondx/ir/program.h"
#include "tritondx/ir/source_map.h"

namespace tdx {

namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

BridgeFailure failure(Diagnostic d) { return BridgeFailure{std::move(d), "task", {}}; }

}  // namespace

// One folder per task and process: two tritondx runs on the same task at once (parallel tests,
// two terminals) must not read each other's half-written stage files.
std::expected<InspectReport, BridgeFailure> run_inspect(const Bridge& bridge, const InspectOptions& options) {
  InspectReport report;
  auto target = load_target(options.target);
  if (!target) return std::unexpected(failure(target.error()));
  report.target = target->card;

  std::error_code ec;
  const auto task_path = fs::absolute(options.task_path, ec).lexically_normal().string();
  if (!fs::exists(task_path, ec))
    return std::unexpected(failure(Diagnostic{Stage::Task, task_path, 0, 0, "task file not found"}));
  report.artifacts_dir = options.artifacts_dir.empty() ? default_artifacts_dir(task_path) : options.artifacts_dir;
  fs::create_directories(report.artifacts_dir, ec);
  if (ec)
    return std::unexpected(failure(Diagnostic{Stage::Task, report.artifacts_dir, 0, 0,
                                              "cannot create the artifacts folder: " + ec.message()}));

  // One bridge call loads and validates the task, captures its launches and compiles them.
  CompileRequest request;
  request.task_path = task_path;
  request.out_dir = report.artifacts_dir;
  request.kernel = options.kernel;
  request.pass_dumps = options.pass_dumps;
  request.include_task = true;
  auto start = std::chrono::steady_clock::now();
  auto compiled = compile_task(bridge, request);
  if (!compiled) return std::unexpected(compiled.error());
  report.compile_seconds = seconds_since(start);
  report.task = task_from_json(compiled->task_info);
  report.notes = capture_notes(compiled->cuda_emulation);

  start = std::chrono::steady_clock::now();
  for (auto& kernel : compiled->kernels) {
    report.triton_seconds += kernel.compile_seconds;
    Program program = load_program(kernel);
    SourceMap map = SourceMap::build(program, report.task.path);
    KernelInspection k;
    k.summary = summarize(program, *target);
    k.lines = build_line_views(program, map, report.task.lines);
    k.compiled = std::move(kernel);
    report.kernels.push_back(std::move(k));
  }
  report.parse_seconds = seconds_since(start);
  return report;
}

}  // namespace tdx
