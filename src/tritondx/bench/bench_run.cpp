#include "tritondx/bench/bench_run.h"

#include "tritondx/core/command.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "tritondx/bench/bench_summary.h"
#include "tritondx/bench/work_queue.h"
#include "tritondx/bridge/gpu_worker.h"
#include "tritondx/bridge/subprocess.h"
#include "tritondx/measure/visible_gpu.h"
#include "tritondx/store/store_merge.h"

namespace tdx {

int write_summary(const BenchRun& run) {
  auto written = write_bench_summary(run.options.out_dir, static_cast<int>(run.all.size()), run.options.suite_dir);
  if (!written) {
    std::cerr << "error: " << written.error().to_string() << "\n";
    return 1;
  }
  for (const auto& p : *written) std::cout << "  wrote " << p << "\n";
  return 0;
}

namespace {

namespace fs = std::filesystem;

const BenchEntry* find_entry(const BenchRun& run, const std::string& id) {
  for (const auto& e : run.all)
    if (e.id == id) return &e;
  return nullptr;
}

// The GPUs the results in `out` were measured on (entries without a GPU name none).
std::set<std::string> cards_of(const fs::path& out) {
  std::set<std::string> cards;
  if (!fs::is_directory(out / "entries")) return cards;
  for (const auto& e : fs::directory_iterator(out / "entries")) {
    auto j = read_result_json((e.path() / "entry.json").string());
    if (std::string card = card_of(j); !card.empty()) cards.insert(card);
  }
  return cards;
}

// The card this run measures on, when results already in the out folder must match it: the
// protocol compares only numbers measured on one card.
std::string card_to_match(const BenchOptions& o) {
  if (o.force || o.gpu == GpuMode::Off) return "";
  std::set<std::string> cards = cards_of(o.out_dir);
  if (cards.empty()) return "";
  std::string card = visible_gpu(Bridge(BridgeConfig::from_environment())).value_or("");
  cards.erase(card);
  if (!card.empty() && !cards.empty())
    std::cout << fmt::format("results in {} measured on {} are measured again on {}\n", o.out_dir,
                             fmt::join(cards, ", "), card);
  return card;
}

// --stop-after: whether a new entry may still start (the ones started always finish).
bool may_start_another(const BenchOptions& o, std::chrono::steady_clock::time_point started) {
  return o.stop_after <= 0 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() < o.stop_after;
}

}  // namespace

std::string bench_one_line(const nlohmann::json& e) {
  std::string status = e.value("status", "");
  if (status == "failed") return fmt::format("{}: failed: {}", e.value("entry", ""), e.value("error", ""));
  if (status == "unmeasured")
    return fmt::format("{}: not measured (no GPU); {} candidates", e.value("entry", ""),
                       e["tritondx"].value("candidates", 0));
  return fmt::format("{}: initial {} ms, tritondx {} ms ({:.2f}x, {} GPU evals), autotune-only {} ms, torch.compile {} ms",
                     e.value("entry", ""), format_ms(entry_number(e, {"initial", "median_ms"})), format_ms(entry_number(e, {"tritondx", "median_ms"})),
                     e["tritondx"].value("speedup", 0.0), e["tritondx"].value("gpu_evaluations", 0),
                     format_ms(entry_number(e, {"autotune_only", "median_ms"})), format_ms(entry_number(e, {"torch", "compile", "median_ms"})));
}

int run_sequential(const BenchRun& run) {
  const auto& o = run.options;
  bool want_gpu = o.gpu != GpuMode::Off;
  Bridge bridge(BridgeConfig::from_environment());
  const std::string card = card_to_match(o);
  auto started = std::chrono::steady_clock::now();
  size_t i = 0;
  for (const auto& e : run.selected) {
    ++i;
    if (!o.force)
      if (auto done = stored_result(o, e, want_gpu, card)) {
        std::cout << fmt::format("[{}/{}] {} (kept from an earlier run)\n", i, run.selected.size(), bench_one_line(*done));
        continue;
      }
    if (!may_start_another(o, started)) {
      std::cout << fmt::format("--stop-after {} s: {} started no more; run again to resume from {}\n", o.stop_after,
                               run.selected.size() - i + 1, e.id);
      break;
    }
    std::cout << fmt::format("[{}/{}] {} ...\n", i, run.selected.size(), e.id) << std::flush;
    auto r = run_bench_entry(bridge, e, o);
    std::cout << fmt::format("[{}/{}] {} ({:.0f} s)\n", i, run.selected.size(), bench_one_line(r),
                             r.value("wall_seconds", 0.0))
              << std::flush;
    // The summary after every entry: a run cut short still leaves an up-to-date summary.
    if (auto w = write_bench_summary(o.out_dir, static_cast<int>(run.all.size()), o.suite_dir); !w)
      std::cerr << "warning: " << w.error().to_string() << "\n";
  }
  return write_summary(run);
}

int run_worker(const BenchRun& run, const std::string& worker, const std::string& queue_path) {
  auto queue = WorkQueue::open(queue_path);
  if (!queue) {
    std::cerr << "error: " << queue.error().to_string() << "\n";
    return cli::kExitFailed;
  }
  Bridge bridge(BridgeConfig::from_environment());
  if (const char* lock = std::getenv("TRITONDX_GPU_LOCK"))
    std::cout << fmt::format("{}: timed sections wait for the GPU lock {}\n", worker, lock) << std::flush;
  auto started = std::chrono::steady_clock::now();
  while (true) {
    if (!may_start_another(run.options, started)) {
      std::cout << fmt::format("{}: --stop-after {} s reached; claiming no more entries\n", worker,
                               run.options.stop_after);
      return 0;
    }
    auto next = queue->claim(worker);
    if (!next) {
      std::cerr << "error: " << next.error().to_string() << "\n";
      return 1;
    }
    if (!*next) return 0;
    const BenchEntry* e = find_entry(run, **next);
    if (!e) {
      std::cerr << "error: the queue names " << **next << ", which is not in the suite\n";
      (void)queue->finish(**next, "failed");
      continue;
    }
    std::cout << fmt::format("{}: {} ...\n", worker, e->id) << std::flush;
    auto r = run_bench_entry(bridge, *e, run.options);
    std::cout << fmt::format("{}: {} ({:.0f} s)\n", worker, bench_one_line(r), r.value("wall_seconds", 0.0)) << std::flush;
    if (auto f = queue->finish(e->id, r.value("status", "") == "failed" ? "failed" : "done"); !f)
      std::cerr << "warning: " << f.error().to_string() << "\n";
  }
}

int run_workers(const BenchRun& run, const std::vector<std::string>& gpus) {
  const auto& o = run.options;
  bool want_gpu = o.gpu != GpuMode::Off;
  const std::string card = card_to_match(o);
  std::vector<std::string> todo;
  for (const auto& e : run.selected)
    if (o.force || !stored_result(o, e, want_gpu, card)) todo.push_back(e.id);
  std::cout << fmt::format("{} of {} entries to run, {} workers (GPUs {})\n", todo.size(), run.selected.size(),
                           gpus.size(), fmt::join(gpus, ", "));
  fs::path queue_path = fs::path(o.out_dir) / "queue.sqlite";
  auto queue = WorkQueue::open(queue_path.string());
  if (!queue) {
    std::cerr << "error: " << queue.error().to_string() << "\n";
    return cli::kExitFailed;
  }
  if (auto filled = queue->fill(todo); !filled) {
    std::cerr << "error: " << filled.error().to_string() << "\n";
    return cli::kExitFailed;
  }
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> base{self,
                                "bench",
                                "--queue",
                                queue_path.string(),
                                "--suite",
                                o.suite_dir,
                                "--out",
                                o.out_dir,
                                "--gpu",
                                run.gpu_mode,
                                "--max-candidates",
                                std::to_string(o.max_candidates),
                                "--max-seconds",
                                fmt::format("{}", o.max_seconds),
                                "--target",
                                o.target,
                                "--rounds",
                                std::to_string(o.rounds)};
  if (!o.autotune) base.push_back("--no-autotune");
  if (!o.torch) base.push_back("--no-torch");
  if (o.stop_after > 0) base.insert(base.end(), {"--stop-after", fmt::format("{}", o.stop_after)});
  std::vector<ProcessResult> results(gpus.size());
  std::vector<std::thread> threads;
  std::atomic<int> running{static_cast<int>(gpus.size())};
  for (size_t k = 0; k < gpus.size(); ++k) {
    threads.emplace_back([&, k] {
      auto args = base;
      args.insert(args.begin() + 2, {"--worker", fmt::format("worker{}-gpu{}", k, gpus[k])});
      ProcessOptions po = pinned_worker_options(gpus[k], o.out_dir);
      try {
        results[k] = run_process(args, "", po);
      } catch (const std::exception& e) {
        results[k].err = e.what();
      }
      --running;
    });
  }
  // Progress: the queue says which entries finished; their results say how.
  std::map<std::string, std::string> reported;
  auto report = [&] {
    auto items = queue->items();
    if (!items) return;
    size_t finished = 0;
    for (const auto& it : *items) finished += it.status == "done" || it.status == "failed";
    for (const auto& it : *items) {
      if ((it.status != "done" && it.status != "failed") || reported.contains(it.entry)) continue;
      reported[it.entry] = it.status;
      const BenchEntry* e = find_entry(run, it.entry);
      auto j = e ? read_result_json((fs::path(entry_dir(o, *e)) / "entry.json").string()) : nlohmann::json();
      std::cout << fmt::format("[{}/{}] {} ({})\n", finished, items->size(),
                               j.is_object() ? bench_one_line(j) : it.entry + ": no result", it.worker)
                << std::flush;
    }
  };
  while (running > 0) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    report();
  }
  for (auto& t : threads) t.join();
  report();
  int rc = 0;
  for (size_t k = 0; k < gpus.size(); ++k) {
    fs::path log = fs::path(o.out_dir) / fmt::format("worker{}.log", k);
    std::ofstream(log) << results[k].out << results[k].err;
    if (results[k].exit_code != 0) {
      std::cerr << fmt::format("worker {} (GPU {}) exited with {}; see {}\n", k, gpus[k], results[k].exit_code,
                               log.string());
      rc = 1;
    }
  }
  if (auto items = queue->items())
    for (const auto& it : *items)
      if (it.status == "pending" && o.stop_after > 0) {
        std::cout << fmt::format("{} was not started (--stop-after); run again to resume\n", it.entry);
      } else if (it.status == "pending" || it.status == "running") {
        std::cerr << fmt::format("{} was not finished ({}); run again to resume it\n", it.entry, it.status);
        rc = 1;
      }
  int s = write_summary(run);
  return rc ? rc : s;
}

int merge_results(const BenchRun& run, const std::vector<std::string>& dirs) {
  const auto& o = run.options;
  fs::path out(o.out_dir);
  int copied = 0, refused = 0;
  // Entries measured on another GPU would mix cards in one summary: its speedups and roofline
  // fractions are per card. The first card merged into an empty folder sets it.
  std::set<std::string> cards = cards_of(out);
  for (const auto& d : dirs) {
    fs::path dir = fs::absolute(d);
    if (dir.lexically_normal() == out.lexically_normal()) continue;
    if (!fs::is_directory(dir / "entries")) {
      std::cerr << "error: " << d << " is not a bench results folder (it has no entries/)\n";
      return 2;
    }
    for (const auto& e : fs::directory_iterator(dir / "entries")) {
      auto j = read_result_json((e.path() / "entry.json").string());
      if (!j.is_object()) continue;  // an entry cut short there
      fs::path target = out / "entries" / e.path().filename();
      auto have = read_result_json((target / "entry.json").string());
      if (!newer_result(j, have)) continue;
      std::string card = card_of(j);
      if (!card.empty() && !cards.empty() && !cards.contains(card) && !o.allow_mixed_cards) {
        std::string here;
        for (const auto& c : cards) here += (here.empty() ? "" : ", ") + c;
        std::cerr << fmt::format("refused {}: measured on {}, the results in {} on {} (--allow-mixed-cards takes it)\n",
                                 j.value("entry", e.path().filename().string()), card, out.string(), here);
        ++refused;
        continue;
      }
      if (!card.empty()) cards.insert(card);
      fs::remove_all(target);
      fs::create_directories(target.parent_path());
      fs::copy(e.path(), target, fs::copy_options::recursive);
      ++copied;
    }
    if (fs::exists(dir / "store.sqlite")) {
      auto s = merge_store((out / "store.sqlite").string(), (dir / "store.sqlite").string());
      if (!s) {
        std::cerr << "error: " << s.error().to_string() << "\n";
        return 1;
      }
      std::cout << fmt::format("merged {}: {} runs, {} candidates, {} findings ({} runs already held)\n",
                               (dir / "store.sqlite").string(), s->runs, s->candidates, s->findings, s->skipped_runs);
    }
  }
  std::cout << fmt::format("{} entry results copied into {}\n", copied, out.string());
  int summary = write_summary(run);
  if (refused > 0) {
    std::cerr << fmt::format("{} entry results refused: measured on another card\n", refused);
    return 1;
  }
  return summary;
}

}  // namespace tdx
