// Running a child process with stdin text, captured output and a wall-clock timeout.
#pragma once

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

// Spawns argv[0] (searched on PATH), writes `input` to its stdin, collects stdout and stderr.
// On timeout the whole process group is killed (SIGKILL) and timed_out is set.
// Throws std::system_error only if the process cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input,
                          const ProcessOptions& options = {});

}  // namespace tdx
