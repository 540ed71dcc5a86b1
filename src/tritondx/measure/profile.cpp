#include "tritondx/measure/profile.h"

#include "tritondx/ir/program.h"

namespace tdx {

Expected<NcuProfile> load_ncu_exports(const std::map<std::string, std::string>& files) {
  NcuProfile profile;
  bool any = false;
  for (auto [page, parse] : {std::pair{"details", &parse_ncu_details_csv}, std::pair{"raw", &parse_ncu_raw_csv},
                             std::pair{"source", &parse_ncu_source_csv}}) {
    auto it = files.find(page);
    if (it == files.end() || it->second.empty()) continue;
    auto text = read_file(it->second, Stage::Profile);
    if (!text) return std::unexpected(text.error());
    if (auto parsed = parse(*text, profile); !parsed) {
      Diagnostic d = parsed.error();
      d.file = it->second;
      return std::unexpected(d);
    }
    any = true;
  }
  if (!any) return fail(Stage::Profile, "Nsight Compute exported no details, raw or source page");
  return profile;
}

std::expected<NcuProfile, BridgeFailure> profile_kernel(const Bridge& bridge, const std::string& task_path,
                                                        const std::string& kernel, const std::string& out_dir,
                                                        int timeout_seconds) {
  nlohmann::json request = {{"task", task_path}, {"out_dir", out_dir}, {"timeout", timeout_seconds}};
  if (!kernel.empty()) request["kernel"] = kernel;
  auto reply = bridge.call("profile", request);
  if (!reply) return std::unexpected(reply.error());
  const auto kernels = reply->value("kernels", nlohmann::json::array());
  for (const auto& k : kernels) {
    if (!kernel.empty() && k.value("kernel", "") != kernel) continue;
    std::map<std::string, std::string> files;
    const auto exported = k.value("files", nlohmann::json::object());  // .items() of a temporary dangles
    for (const auto& [page, path] : exported.items())
      if (path.is_string()) files[page] = path.get<std::string>();
    auto profile = load_ncu_exports(files);
    if (!profile) return std::unexpected(BridgeFailure{profile.error(), "profile-unreadable", k});
    if (profile->kernel.empty()) profile->kernel = k.value("kernel", kernel);
    return std::move(*profile);
  }
  return std::unexpected(BridgeFailure{
      Diagnostic{Stage::Profile, task_path, 0, 0,
                 fmt::format("Nsight Compute profiled no kernel named '{}'", kernel.empty() ? "(any)" : kernel)},
      "no-kernel-profiled", *reply});
}

}  // namespace tdx
