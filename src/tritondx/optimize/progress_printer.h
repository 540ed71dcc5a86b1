// optimize's progress on stderr: one line per evaluated candidate (id, recipe, status, result,
// best so far), and on a terminal a status line below them, redrawn every second with the time
// spent against the budget.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "tritondx/optimize/optimize_options.h"

namespace tdx {

std::string progress_line(const CandidateProgress& p);

class ProgressPrinter {
 public:
  // `live`: also keep a status line redrawn every second (stderr is a terminal).
  ProgressPrinter(std::ostream& out, bool live, double budget_seconds, int max_candidates);
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  void candidate(const CandidateProgress& p);

 private:
  std::string status_line() const;  // with mutex_ held
  void redraw();                    // with mutex_ held

  std::ostream& out_;
  const bool live_;
  double budget_;  // --max-seconds, then also the original's evaluation once it is known
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  int evaluated_ = 0, max_candidates_ = 0;
  std::string best_;
  std::thread ticker_;
};

}  // namespace tdx
