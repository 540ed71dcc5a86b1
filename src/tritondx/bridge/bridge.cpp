#include "tritondx/bridge/bridge.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

#include "tritondx/bridge/bridge_process.h"
#include "tritondx/bridge/subprocess.h"
#include "tritondx/core/install_paths.h"

namespace tdx {

namespace fs = std::filesystem;

BridgeConfig BridgeConfig::from_environment() {
  BridgeConfig c;
  const fs::path root = data_root();
  if (const char* p = std::getenv("TRITONDX_PYTHON"); p && *p) c.python = p;
  else if (fs::exists(root / ".venv/bin/python")) c.python = (root / ".venv/bin/python").string();
  else c.python = "python3";
  if (const char* p = std::getenv("TRITONDX_BRIDGE_PATH"); p && *p) c.python_path = p;
  else c.python_path = (root / "python").string();
  return c;
}

namespace {

std::string tail(const std::string& text, size_t n) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

Stage stage_for_kind(const std::string& kind) {
  if (kind == "compile-error") return Stage::Ttir;
  if (kind == "bad-request" || kind == "internal") return Stage::Bridge;
  return Stage::Task;
}

}  // namespace

Bridge::Bridge(BridgeConfig config) : config_(std::move(config)) {}
Bridge::~Bridge() = default;

namespace {
std::atomic<double> gpu_lock_waited{0.0};

bool compile_only(const std::string& verb) {
  return verb == "ast" || verb == "load" || verb == "capture" || verb == "compile";
}
}  // namespace

double bridge_gpu_lock_wait_seconds() { return gpu_lock_waited.load(); }

std::expected<nlohmann::json, BridgeFailure> Bridge::call(const std::string& verb,
                                                          const nlohmann::json& request) const {
  std::map<std::string, std::string> env{{"PYTHONPATH", config_.python_path}, {"PYTHONUNBUFFERED", "1"}};
  if (config_.persistent && compile_only(verb)) {
    if (!server_)
      server_ = std::make_unique<BridgeProcess>(
          std::vector<std::string>{config_.python, "-m", "tritondx_bridge", "serve"}, env);
    auto result = server_->call(nlohmann::json{{"verb", verb}, {"request", request}}.dump(), config_.timeout);
    if (result.timed_out)
      return std::unexpected(BridgeFailure{
          Diagnostic{Stage::Bridge, "", 0, 0,
                     fmt::format("bridge verb '{}' did not finish within {} s and was killed", verb,
                                 config_.timeout.count())},
          "timeout", {{"stderr_tail", tail(result.stderr_tail, 4000)}}});
    return reply_to_json(verb, result.reply.value_or(""), result.why, result.stderr_tail);
  }
  ProcessOptions options;
  options.timeout = config_.timeout;
  options.env = env;
  ProcessResult result;
  try {
    result = run_process({config_.python, "-m", "tritondx_bridge", verb}, request.dump(), options);
  } catch (const std::system_error& e) {
    return std::unexpected(BridgeFailure{
        Diagnostic{Stage::Bridge, "", 0, 0, fmt::format("cannot start {}: {}", config_.python, e.what())},
        "cannot-start", {}});
  }
  if (result.timed_out) {
    return std::unexpected(BridgeFailure{
        Diagnostic{Stage::Bridge, "", 0, 0,
                   fmt::format("bridge verb '{}' did not finish within {} s and was killed", verb,
                               config_.timeout.count())},
        "timeout", {{"stderr_tail", tail(result.err, 4000)}}});
  }
  std::string why = result.signal ? fmt::format("was killed by signal {}", result.signal)
                                  : fmt::format("exited with code {}", result.exit_code);
  return reply_to_json(verb, result.out, why, result.err);
}

std::expected<nlohmann::json, BridgeFailure> Bridge::reply_to_json(const std::string& verb, const std::string& out,
                                                                   const std::string& why,
                                                                   const std::string& err) const {
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception&) {
    return std::unexpected(BridgeFailure{
        Diagnostic{Stage::Bridge, "", 0, 0,
                   fmt::format("bridge verb '{}' {} without a JSON reply; stderr: {}", verb, why, tail(err, 2000))},
        "crash", {{"stderr_tail", tail(err, 8000)}}});
  }
  if (auto w = reply.find("gpu_lock_wait_s"); w != reply.end() && w->is_number())
    gpu_lock_waited.fetch_add(w->get<double>());
  if (!reply.value("ok", false)) {
    const auto& e = reply.value("error", nlohmann::json::object());
    std::string kind = e.value("kind", "internal");
    Diagnostic d{stage_for_kind(kind), e.value("file", ""), e.value("line", 0), e.value("col", 0),
                 e.value("message", "bridge reported an error without a message")};
    return std::unexpected(BridgeFailure{std::move(d), kind, e.value("detail", nlohmann::json())});
  }
  return reply;
}

}  // namespace tdx
