// The C++ side of the bridge protocol: `python -m tritondx_bridge <verb>`, one JSON
// request on stdin, one JSON reply on stdout, a timeout, and errors as Diagnostics.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct BridgeConfig {
  std::string python;       // interpreter with triton installed
  std::string python_path;  // folder holding the tritondx_bridge package
  std::chrono::seconds timeout{600};
  // Keep one `serve` process for the compile-only verbs (ast, load, capture, compile), so
  // Python, torch and Triton start once per tritondx run. GPU verbs (run, profile) always get
  // a fresh process: no state is shared between measured runs.
  bool persistent = true;

  // TRITONDX_PYTHON / TRITONDX_BRIDGE_PATH, else the project's .venv and python/ folder,
  // else python3 on PATH.
  static BridgeConfig from_environment();
};

// A bridge failure keeps what the bridge said: the error kind ("compile-error",
// "syntax-error", "timeout", ...) and its structured detail.
struct BridgeFailure {
  Diagnostic diagnostic;
  std::string kind;
  nlohmann::json detail;
};

class BridgeProcess;

// Seconds this process's bridge calls have waited for the shared GPU (TRITONDX_GPU_LOCK: bench
// workers on one GPU), summed from the replies' gpu_lock_wait_s. A search leaves them out of its
// time budget: they are other workers' timed sections.
double bridge_gpu_lock_wait_seconds();

class Bridge {
 public:
  explicit Bridge(BridgeConfig config);
  ~Bridge();
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;

  // Runs one verb. The reply's "ok" member is checked; an error reply, a crash, a
  // timeout or unparsable output becomes a BridgeFailure naming the problem.
  std::expected<nlohmann::json, BridgeFailure> call(const std::string& verb,
                                                    const nlohmann::json& request) const;

  const BridgeConfig& config() const { return config_; }

 private:
  std::expected<nlohmann::json, BridgeFailure> reply_to_json(const std::string& verb, const std::string& out,
                                                             const std::string& why, const std::string& err) const;
  BridgeConfig config_;
  mutable std::unique_ptr<BridgeProcess> server_;
};

}  // namespace tdx
