// Starting child processes: the one spawner (a process group of its own, pipes to its stdin,
// stdout and stderr, the parent's environment with additions) and, on top of it, running a
// child with stdin text, captured output and a wall-clock timeout.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace tdx {

struct ProcessResult {
  int exit_code = -1;     // valid when exited normally
  int signal = 0;         // terminating signal, 0 if none
  bool timed_out = false; // killed at the timeout
  std::string out;
  std::string err;
  double seconds = 0;
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::map<std::string, std::string> env;  // added to (or replacing in) the parent's environment
  std::string cwd;
};

// A started child and the parent's ends of its pipes (the caller closes them).
struct SpawnedProcess {
  pid_t pid = -1;
  int in = -1;   // write end of the child's stdin
  int out = -1;  // read end of its stdout
  int err = -1;  // read end of its stderr
};

// Spawns argv[0] (searched on PATH) in a process group of its own, with the parent's environment
// plus `env` (which replaces variables of the same name), in `cwd` when not empty. Throws
// std::system_error when the pipes cannot be made or the process cannot be started.
SpawnedProcess spawn_with_pipes(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                                const std::string& cwd = {});

// Spawns argv[0] (searched on PATH), writes `input` to its stdin, collects stdout and stderr.
// On timeout the whole process group is killed (SIGKILL) and timed_out is set.
// Throws std::system_error only if the process cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input,
                          const ProcessOptions& options = {});

// Runs argv[0] (searched on PATH) attached to this process's stdin, stdout and stderr (a user's
// program, whose output is theirs to see), with the parent's environment plus `env`; waits and
// returns its exit status (128 + the signal when a signal ended it). Throws std::system_error
// when it cannot be started.
int run_attached(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);

}  // namespace tdx
