// The order in which the search evaluates a node's rewrite attempts, from what this run has
// measured so far.
#pragma once

#include <string>
#include <vector>

#include "tritondx/optimize/search.h"
#include "tritondx/rewrite/rewriter.h"

namespace tdx {

// The largest speedup (parent time / child time) a verified, measured candidate made by
// `recipe` for a finding of rule `target` achieved over its parent in `nodes`; 0 when none.
double measured_gain(const std::vector<SearchNode>& nodes, const std::string& recipe, const std::string& target);

// Indices into `attempts`: first those whose recipe is in `enabled` (the recipes the node's own
// rewrite was made for, Recipe::enables), then those whose recipe already sped up a kernel of
// this run (same recipe, same targeted rule; largest gain first), then the untried, then those
// measured without a gain of `min_gain`. Each group keeps the given (finding priority) order, so without
// measurements (no GPU) the order is unchanged.
std::vector<size_t> order_by_measured_gain(const std::vector<RewriteAttempt>& attempts,
                                           const std::vector<SearchNode>& nodes, double min_gain,
                                           const std::vector<std::string_view>& enabled = {});

}  // namespace tdx
