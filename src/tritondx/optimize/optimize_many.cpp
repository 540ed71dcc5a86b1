#include "tritondx/optimize/optimize_many.h"

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "tritondx/bridge/gpu_worker.h"
#include "tritondx/capture/program_gain.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

// "2.13x, 0.0987 ms" from a task's report.json, or why there is none.
std::string outcome(const fs::path& out_dir) {
  std::ifstream in(out_dir / "report.json");
  if (!in) return "no report.json";
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return "report.json is not JSON";
  std::string line = fmt::format("{} kernels evaluated", j.value("evaluated", 0));
  if (j.contains("speedup") && j["speedup"].is_number())
    line += fmt::format(", {:.2f}x over the original", j["speedup"].get<double>());
  else
    line += ", not measured (no GPU)";
  return line + "; " + j.value("stop_reason", std::string());
}

}  // namespace

std::vector<std::string> task_out_dirs(const OptimizeManyOptions& m) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (const auto& t : m.tasks) {
    fs::path task = fs::absolute(t);
    if (m.out_dir.empty()) {
      out.push_back(default_out_dir(task).string());
      continue;
    }
    std::string stem = task.stem().string();
    int n = ++seen[stem];
    out.push_back((fs::absolute(m.out_dir) / (n == 1 ? stem : fmt::format("{}-{}", stem, n))).string());
  }
  return out;
}

std::vector<std::string> task_command(const OptimizeManyOptions& m, const std::string& self, size_t i,
                                      const std::string& out_dir) {
  const OptimizeOptions& o = m.each;
  std::vector<std::string> args{self, "optimize", fs::absolute(m.tasks[i]).string(), "--out", out_dir,
                                "--gpu", m.gpu_mode, "--max-candidates", std::to_string(o.max_candidates),
                                "--max-seconds", fmt::format("{}", o.max_seconds), "--max-depth",
                                std::to_string(o.max_depth), "--min-gain", fmt::format("{}", o.min_gain),
                                "--tune-below-roofline", fmt::format("{}", o.tune_below_roofline),
                                "--target", o.target};
  if (!o.store_path.empty()) args.insert(args.end(), {"--store", fs::absolute(o.store_path).string()});
  if (o.resume) args.push_back("--resume");
  if (!o.profile) args.push_back("--no-profile");
  if (!o.tune) args.push_back("--no-tune");
  if (o.llm) args.push_back("--llm");
  if (!o.recipes) args.push_back("--no-recipes");
  if (o.llm_attempts != 1) args.insert(args.end(), {"--llm-attempts", std::to_string(o.llm_attempts)});
  if (!o.llm_config.empty()) args.insert(args.end(), {"--llm-config", o.llm_config});
  if (o.llm_evidence != "full") args.insert(args.end(), {"--llm-evidence", o.llm_evidence});
  return args;
}

// When the tasks are those `tritondx capture` wrote (a capture.json beside them), what their runs
// gain the program, by each kernel's share of it: written to program-gain.json after every finished
// task (a run cut short keeps what it finished; tasks not yet run are left out) and printed at the end.
void report_program_gain(const OptimizeManyOptions& m, const std::vector<std::string>& dirs,
                         const std::vector<int>& exit_codes, const std::vector<char>& finished, bool print) {
  const fs::path capture = fs::absolute(m.tasks.front()).parent_path() / "capture.json";
  for (const auto& t : m.tasks)
    if (fs::absolute(t).parent_path() != capture.parent_path()) return;
  std::ifstream in(capture);
  if (!in) return;
  auto summary = nlohmann::json::parse(in, nullptr, false);
  if (summary.is_discarded()) return;
  std::vector<std::pair<std::string, std::optional<nlohmann::json>>> reports;
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    if (!finished[i]) continue;
    std::optional<nlohmann::json> report;
    std::ifstream r(fs::path(dirs[i]) / "report.json");
    if (exit_codes[i] == 0 && r) {
      auto j = nlohmann::json::parse(r, nullptr, false);
      if (!j.is_discarded()) report = std::move(j);
    }
    reports.emplace_back(fs::absolute(m.tasks[i]).string(), std::move(report));
  }
  ProgramGain gain = program_gain(summary, reports);
  if (gain.kernels.empty()) return;
  if (print) std::cout << render_program_gain(gain) << std::flush;
  nlohmann::json j{{"capture", capture.string()}, {"gpu_ranked", gain.gpu_ranked},
                   {"optimized_share", gain.optimized_share}, {"kernels", nlohmann::json::array()}};
  j["speedup"] = gain.speedup ? nlohmann::json(*gain.speedup) : nlohmann::json(nullptr);
  for (const auto& k : gain.kernels)
    j["kernels"].push_back({{"kernel", k.kernel}, {"task", k.task}, {"share", k.share}, {"status", k.status},
                            {"speedup", k.speedup ? nlohmann::json(*k.speedup) : nlohmann::json(nullptr)}});
  const fs::path where = m.out_dir.empty() ? capture.parent_path() : fs::path(m.out_dir);
  std::ofstream(where / "program-gain.json") << j.dump(1) << "\n";
}

int optimize_many(const OptimizeManyOptions& m) {
  const auto dirs = task_out_dirs(m);
  for (size_t i = 0; i < dirs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (dirs[i] == dirs[j]) {
        std::cerr << fmt::format("error: {} and {} would both write {}; give each task once\n", m.tasks[j],
                                 m.tasks[i], dirs[i]);
        return 2;
      }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  // Workers on one GPU share its lock: next to the outputs, or in the temp folder.
  const fs::path lock_dir = m.out_dir.empty() ? fs::temp_directory_path() : fs::absolute(m.out_dir);
  std::error_code lock_ec;
  fs::create_directories(lock_dir, lock_ec);
  std::cout << fmt::format("{} tasks, {} workers (GPUs {})\n", m.tasks.size(), m.gpus.size(), fmt::join(m.gpus, ", "))
            << std::flush;

  std::atomic<size_t> next{0};
  std::mutex print;
  size_t finished = 0;
  std::vector<int> exit_codes(m.tasks.size(), -1);
  std::vector<char> done(m.tasks.size(), 0);
  std::vector<std::thread> workers;
  for (size_t k = 0; k < m.gpus.size(); ++k) {
    workers.emplace_back([&, k] {
      for (size_t i = next++; i < m.tasks.size(); i = next++) {
        std::error_code ec;
        fs::create_directories(dirs[i], ec);
        ProcessResult r;
        try {
          r = run_process(task_command(m, self, i, dirs[i]), "", pinned_worker_options(m.gpus[k], lock_dir));
        } catch (const std::exception& e) {
          r.err = e.what();
        }
        fs::path log = fs::path(dirs[i]) / "optimize.log";
        std::ofstream(log) << r.out << r.err;
        std::lock_guard<std::mutex> lock(print);
        exit_codes[i] = r.exit_code;
        done[i] = 1;
        std::string what = r.exit_code == 0 ? outcome(dirs[i])
                                            : fmt::format("failed (exit {}{}); see {}", r.exit_code,
                                                          r.signal ? fmt::format(", signal {}", r.signal) : "",
                                                          log.string());
        std::cout << fmt::format("[{}/{}] {}: {} (worker{}-gpu{}, {:.0f} s)\n", ++finished, m.tasks.size(),
                                 m.tasks[i], what, k, m.gpus[k], r.seconds)
                  << std::flush;
        report_program_gain(m, dirs, exit_codes, done, /*print=*/false);
      }
    });
  }
  for (auto& w : workers) w.join();
  report_program_gain(m, dirs, exit_codes, done, /*print=*/true);
  int failed = 0;
  for (size_t i = 0; i < m.tasks.size(); ++i) failed += exit_codes[i] != 0;
  if (failed) {
    std::cerr << fmt::format("error: {} of {} tasks failed; each one's optimize.log says why, and what they "
                             "evaluated is in their store (`--resume` continues)\n",
                             failed, m.tasks.size());
    return 1;
  }
  return 0;
}

}  // namespace tdx
