// Which GPU the bridge sees, asked before measuring: stored timings are only compared with new
// ones taken on the same card.
#pragma once

#include <string>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"

namespace tdx {

// The card's name as measurements record it ("NVIDIA H200"), or "" when no CUDA GPU is visible.
Expected<std::string> visible_gpu(const Bridge& bridge);

// Why a run measured on `run_device` cannot go on here, or "" when it can: the card is the same,
// or the run has measured nothing yet.
std::string card_change(const std::string& run_device, const std::string& visible);

}  // namespace tdx
