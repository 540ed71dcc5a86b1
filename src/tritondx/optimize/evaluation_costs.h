// What the search's evaluations have cost so far, in seconds of its time budget, and whether
// the budget left still pays for profiling a node before expanding it.
#pragma once

#include <vector>

namespace tdx {

struct EvaluationCosts {
  double original = 0;             // the original kernel's evaluation, Nsight Compute profile included
  std::vector<double> candidates;  // each candidate's (measured, not profiled)

  // True when `elapsed + profile + candidate <= max_seconds`, with the profile's cost estimated
  // as what the original took beyond a mean candidate; true too before anything is known.
  bool affords_profile(double elapsed, double max_seconds) const;
  double mean_candidate() const;
};

}  // namespace tdx
