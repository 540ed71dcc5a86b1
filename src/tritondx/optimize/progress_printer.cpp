#include "tritondx/optimize/progress_printer.h"

#include <fmt/format.h>

namespace tdx {

namespace {
constexpr const char* kClearLine = "\r\x1b[2K";
}  // namespace

std::string progress_line(const CandidateProgress& p) {
  const std::string what = p.recipe.empty() ? std::string("the original kernel")
                                            : fmt::format("{} on line {}", p.recipe, p.target_line);
  std::string line = fmt::format("[{:>5.0f} s] candidate {:>3}: {}: {}, {}", p.elapsed, p.id, what, p.status, p.result);
  if (p.evaluated > 0) line += fmt::format(" | best: candidate {} ({})", p.best_id, p.best);
  return line;
}

ProgressPrinter::ProgressPrinter(std::ostream& out, bool live, double budget_seconds, int max_candidates)
    : out_(out), live_(live), budget_(budget_seconds), max_candidates_(max_candidates) {
  if (!live_) return;
  ticker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      redraw();
      wake_.wait_for(lock, std::chrono::seconds(1));
    }
  });
}

ProgressPrinter::~ProgressPrinter() {
  if (!live_) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  out_ << kClearLine << std::flush;
}

void ProgressPrinter::candidate(const CandidateProgress& p) {
  std::lock_guard lock(mutex_);
  evaluated_ = p.evaluated;
  if (p.budget > 0) budget_ = p.budget;
  if (p.evaluated > 0) best_ = fmt::format("best: candidate {} ({})", p.best_id, p.best);
  if (live_) out_ << kClearLine;
  out_ << progress_line(p) << "\n";
  if (live_) redraw();
  out_ << std::flush;
}

std::string ProgressPrinter::status_line() const {
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const int width = 20;
  const double fraction = budget_ > 0 ? std::min(spent / budget_, 1.0) : 0.0;
  const int filled = static_cast<int>(fraction * width);
  return fmt::format("optimize [{}{}] {:.0f} s of {:.0f} s, {} of {} candidates{}", std::string(filled, '#'),
                     std::string(width - filled, '.'), spent, budget_, evaluated_, max_candidates_,
                     best_.empty() ? "" : ", " + best_);
}

void ProgressPrinter::redraw() { out_ << kClearLine << status_line() << std::flush; }

}  // namespace tdx
