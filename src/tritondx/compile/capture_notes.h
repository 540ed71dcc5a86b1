// The bridge's "cuda_emulation" (what the capture emulated to run launch() without a GPU, and
// the host reads of kernel arguments whose values it could not know) in words, for the notes of
// `diagnose` and `inspect`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tdx {

std::vector<std::string> capture_notes(const nlohmann::json& cuda_emulation);

}  // namespace tdx
