#include "tritondx/compile/capture_notes.h"

#include <fmt/format.h>

namespace tdx {

std::vector<std::string> capture_notes(const nlohmann::json& cuda_emulation) {
  std::vector<std::string> notes;
  if (!cuda_emulation.is_object()) return notes;
  std::string emulated;
  for (const auto& name : cuda_emulation.value("emulated", nlohmann::json::array()))
    if (name.is_string()) emulated += (emulated.empty() ? "" : ", ") + name.get<std::string>();
  if (!emulated.empty())
    notes.push_back("launch() was captured on CPU tensors with CUDA emulated for it (" + emulated +
                    "); see docs/task-format.md, \"Wrappers that want a GPU\"");
  for (const auto& read : cuda_emulation.value("host_reads", nlohmann::json::array()))
    notes.push_back(fmt::format(
        "line {}: `{}` reads on the host (.{}()) a tensor given to {}: no kernel runs during the capture, so it got "
        "what the CPU tensor held, not the kernel's result; launch parameters computed from it may differ on a GPU",
        read.value("line", 0), read.value("code", ""), read.value("method", ""), read.value("kernel", "")));
  return notes;
}

}  // namespace tdx
