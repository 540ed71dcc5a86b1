// A long-lived `python -m tritondx_bridge serve` child: one JSON line in, one JSON line out
// per call, each with its own timeout. A call that times out kills the child (its whole
// process group); the next call starts a fresh one.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tdx {

struct ServeResult {
  std::optional<std::string> reply;  // the reply line; nullopt on timeout or crash
  bool timed_out = false;
  std::string why;          // what happened when there is no reply
  std::string stderr_tail;  // the child's recent stderr
};

class BridgeProcess {
 public:
  BridgeProcess(std::vector<std::string> argv, std::map<std::string, std::string> env)
      : argv_(std::move(argv)), env_(std::move(env)) {}
  ~BridgeProcess();
  BridgeProcess(const BridgeProcess&) = delete;
  BridgeProcess& operator=(const BridgeProcess&) = delete;

  ServeResult call(const std::string& line, std::chrono::milliseconds timeout);
  bool running() const { return pid_ > 0; }

 private:
  bool start(std::string& why);
  void stop();
  std::vector<std::string> argv_;
  std::map<std::string, std::string> env_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_buffer_;
  std::string err_tail_;
};

}  // namespace tdx
