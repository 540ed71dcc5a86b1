#include "tritondx/bridge/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

extern char** environ;

namespace tdx {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

// One end of a pipe the parent keeps, closed when it goes out of scope.
struct OwnedFd {
  int fd = -1;
  explicit OwnedFd(int f) : fd(f) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { reset(); }
  void reset() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos && extra.contains(entry.substr(0, eq))) continue;
    env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

// argv and the merged environment as the NULL-terminated arrays posix_spawnp takes (pointing into
// this object, which must outlive the call).
class SpawnArrays {
 public:
  SpawnArrays(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env)
      : env_strings_(merged_environment(env)) {
    for (const auto& a : argv) args_.push_back(const_cast<char*>(a.c_str()));
    args_.push_back(nullptr);
    for (auto& e : env_strings_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }
  SpawnArrays(const SpawnArrays&) = delete;
  SpawnArrays& operator=(const SpawnArrays&) = delete;
  char* const* args() const { return args_.data(); }
  char* const* envp() const { return envp_.data(); }

 private:
  std::vector<std::string> env_strings_;
  std::vector<char*> args_;
  std::vector<char*> envp_;
};

}  // namespace

SpawnedProcess spawn_with_pipes(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                                const std::string& cwd) {
  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  SpawnArrays arrays(argv, env);
  SpawnedProcess child;
  int rc = posix_spawnp(&child.pid, arrays.args()[0], &actions, &attr, arrays.args(), arrays.envp());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "cannot start " + argv[0]);
  child.in = std::exchange(in.fd[1], -1);
  child.out = std::exchange(out.fd[0], -1);
  child.err = std::exchange(err.fd[0], -1);
  return child;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input,
                          const ProcessOptions& options) {
  auto start = std::chrono::steady_clock::now();
  SpawnedProcess child = spawn_with_pipes(argv, options.env, options.cwd);
  const pid_t pid = child.pid;
  OwnedFd in{child.in}, out{child.out}, err{child.err};

  ProcessResult result;
  size_t written = 0;
  if (input.empty()) in.reset();
  else fcntl(in.fd, F_SETFL, O_NONBLOCK);
  auto deadline = start + options.timeout;
  char buf[65536];
  while (out.fd >= 0 || err.fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(-pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    pollfd fds[3];
    int n = 0;
    int out_i = -1, err_i = -1, in_i = -1;
    if (out.fd >= 0) { out_i = n; fds[n++] = {out.fd, POLLIN, 0}; }
    if (err.fd >= 0) { err_i = n; fds[n++] = {err.fd, POLLIN, 0}; }
    if (in.fd >= 0) { in_i = n; fds[n++] = {in.fd, POLLOUT, 0}; }
    int ready = poll(fds, n, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    auto drain = [&](int idx, OwnedFd& p, std::string& sink) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t got = read(p.fd, buf, sizeof buf);
      if (got > 0) sink.append(buf, static_cast<size_t>(got));
      else if (got == 0 || (errno != EINTR && errno != EAGAIN)) p.reset();
    };
    drain(out_i, out, result.out);
    drain(err_i, err, result.err);
    if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t put = write(in.fd, input.data() + written, input.size() - written);
      if (put > 0) written += static_cast<size_t>(put);
      if (put < 0 && errno != EAGAIN && errno != EINTR) in.reset();
      if (written == input.size()) in.reset();
    }
  }
  in.reset();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

int run_attached(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  SpawnArrays arrays(argv, env);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, arrays.args()[0], nullptr, nullptr, arrays.args(), arrays.envp());
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "cannot start " + argv[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace tdx
