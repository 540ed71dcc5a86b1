#include "tritondx/bridge/bridge_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "tritondx/bridge/subprocess.h"

namespace tdx {

BridgeProcess::~BridgeProcess() { stop(); }

bool BridgeProcess::start(std::string& why) {
  try {
    SpawnedProcess child = spawn_with_pipes(argv_, env_);
    pid_ = child.pid;
    in_ = child.in;
    out_ = child.out;
    err_ = child.err;
  } catch (const std::system_error& e) {
    pid_ = -1;
    why = e.what();
    return false;
  }
  fcntl(out_, F_SETFL, O_NONBLOCK);
  fcntl(err_, F_SETFL, O_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);
  out_buffer_.clear();
  err_tail_.clear();
  return true;
}

void BridgeProcess::stop() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  }
  for (int* fd : {&in_, &out_, &err_})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
  pid_ = -1;
}

ServeResult BridgeProcess::call(const std::string& line, std::chrono::milliseconds timeout) {
  ServeResult result;
  if (pid_ <= 0 && !start(result.why)) return result;
  std::string message = line + "\n";
  size_t written = 0;
  while (written < message.size()) {
    ssize_t n = write(in_, message.data() + written, message.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      result.why = "the bridge process closed its input (it has exited)";
      result.stderr_tail = err_tail_;
      stop();
      return result;
    }
    written += static_cast<size_t>(n);
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  while (true) {
    if (auto nl = out_buffer_.find('\n'); nl != std::string::npos) {
      result.reply = out_buffer_.substr(0, nl);
      out_buffer_.erase(0, nl + 1);
      return result;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      result.why = "timed out";
      result.stderr_tail = err_tail_;
      stop();
      return result;
    }
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    int ready = poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      ssize_t n = read(err_, buf, sizeof buf);
      if (n > 0) {
        err_tail_.append(buf, static_cast<size_t>(n));
        if (err_tail_.size() > 16384) err_tail_.erase(0, err_tail_.size() - 16384);
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(out_, buf, sizeof buf);
      if (n > 0) out_buffer_.append(buf, static_cast<size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR)) break;  // the child exited
    }
  }
  int status = 0;
  waitpid(pid_, &status, WNOHANG);
  result.why = WIFSIGNALED(status) ? "the bridge process was killed by signal " + std::to_string(WTERMSIG(status))
                                   : "the bridge process exited without a reply";
  result.stderr_tail = err_tail_;
  stop();
  return result;
}

}  // namespace tdx
