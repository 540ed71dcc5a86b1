#include "tritondx/measure/visible_gpu.h"

#include <fmt/format.h>

namespace tdx {

Expected<std::string> visible_gpu(const Bridge& bridge) {
  auto reply = bridge.call("device", nlohmann::json::object());
  if (!reply) return std::unexpected(reply.error().diagnostic);
  return reply->value("device", "");
}

std::string card_change(const std::string& run_device, const std::string& visible) {
  if (run_device.empty() || run_device == visible) return "";
  if (visible.empty()) return fmt::format("it was measured on {}, and no GPU is visible here", run_device);
  return fmt::format("it was measured on {}, and the GPU here is {}: timings of two cards are not compared",
                     run_device, visible);
}

}  // namespace tdx
