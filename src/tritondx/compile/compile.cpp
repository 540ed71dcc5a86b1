#include "tritondx/compile/compile.h"

#include <filesystem>

namespace tdx {

CompileResult compile_result_from_json(const nlohmann::json& reply, const std::string& base_dir) {
  CompileResult result;
  for (const auto& k : reply.value("kernels", nlohmann::json::array())) {
    CompiledKernel kernel;
    kernel.name = k.value("kernel", "");
    const auto files = k.value("files", nlohmann::json::object());
    for (const auto& [stage, path] : files.items()) {
      std::filesystem::path p = path.get<std::string>();
      if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
      kernel.files[stage] = p.string();
    }
    kernel.launch = k.value("launch", nlohmann::json::object());
    kernel.metadata = k.value("metadata", nlohmann::json::object());
    kernel.resources = k.value("resources", nlohmann::json::object());
    kernel.remarks = k.value("remarks", nlohmann::json::array());
    for (const auto& n : k.value("notes", nlohmann::json::array())) kernel.notes.push_back(n.get<std::string>());
    if (k.contains("compile_seconds") && k["compile_seconds"].is_number())
      kernel.compile_seconds = k["compile_seconds"].get<double>();
    result.kernels.push_back(std::move(kernel));
  }
  result.launches = reply.value("launches", nlohmann::json::array());
  result.task_info = reply.value("task_info", nlohmann::json());
  result.cuda_emulation = reply.value("cuda_emulation", nlohmann::json());
  return result;
}

std::expected<CompileResult, BridgeFailure> compile_task(const Bridge& bridge, const CompileRequest& r) {
  nlohmann::json request{{"task", r.task_path}, {"out_dir", r.out_dir}, {"arch", r.arch},
                         {"pass_dumps", r.pass_dumps}, {"remarks", r.remarks}};
  if (!r.kernel.empty()) request["kernel"] = r.kernel;
  if (!r.what_if.is_null()) request["what_if"] = r.what_if;
  if (!r.autotune_config.is_null()) request["autotune_config"] = r.autotune_config;
  if (r.include_task) request["include_task"] = true;
  auto reply = bridge.call("compile", request);
  if (!reply) return std::unexpected(reply.error());
  return compile_result_from_json(*reply);
}

}  // namespace tdx
