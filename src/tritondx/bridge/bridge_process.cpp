#include "tritondx/bridge/bridge_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace tdx {

BridgeProcess::~BridgeProcess() { stop(); }

bool BridgeProcess::start(std::string& why) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    why = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos && env_.contains(entry.substr(0, eq))) continue;
    env_strings.push_back(std::move(entry));
  }
  for (const auto& [k, v] : env_) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  int rc = posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    pid_ = -1;
    why = "cannot start " + argv_.front() + ": " + std::strerror(rc);
    return false;
  }
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
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
