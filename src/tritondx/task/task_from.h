// `tritondx task-from`: a task file made from a real kernel file (a kernel library module, or a
// TritonBench-style file whose test code follows a line of `#`), a call of its wrapper and the
// declared inputs (task_from_spec.h). See docs/task-format.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/task/task_from_spec.h"

namespace tdx {

struct TaskFromOptions {
  std::string file;    // the kernel file
  std::string call;    // a Python call of its wrapper: "rms_norm(x, w, eps=1e-6)"
  std::string inputs;  // the inputs' declaration: "x: (8192, 4096) float16, w: (4096,) float16"
  std::string out;     // the task file to write; "" for <FILE stem>.task.py next to FILE
  bool force = false;  // overwrite an existing task file
};

// The kernel file cut at its test-code separator: the first line of only `#` characters (20 or
// more); the separator and every line after it are dropped.
struct KernelFileText {
  std::string kept;  // ends with a newline unless empty
  int kept_lines = 0;
  int dropped_lines = 0;
  bool has_separator = false;
};

KernelFileText split_at_test_separator(std::string_view source);

// What the generated task says, in order: header, kernel text, launch, make_inputs, bytes_moved.
struct TaskText {
  std::string command;      // the command line that made it (task_from_command_line)
  std::string source_path;  // absolute path of the kernel file
  KernelFileText kernel_file;
  std::vector<InputSpec> inputs;
  std::string call;
  long long output_bytes = 0;
  std::string outputs_described;  // "float16 (8192, 4096)"; "" before capture has measured them
};

std::string render_task_header(const TaskText& t);
std::string render_task(const TaskText& t);  // header + kernel text + generated section

// `tritondx task-from FILE --call ... --inputs ...`, each argument quoted for a POSIX shell.
std::string task_from_command_line(const TaskFromOptions& options);

struct CapturedLaunch {
  std::string kernel;
  std::vector<long long> grid;
  int count = 1;  // identical launches (same kernel and grid) in a row or not
};

struct TaskFromResult {
  std::string task_path;
  std::string source_path;
  KernelFileText kernel_file;
  std::vector<CapturedLaunch> launches;
  long long output_bytes = 0;
  std::string outputs_described;
};

// Checks the file, the call and the inputs, writes the task, then validates it and measures its
// outputs with the bridge's `capture` verb. Nothing is written when any step fails.
Expected<TaskFromResult> make_task_from(const Bridge& bridge, const TaskFromOptions& options);

}  // namespace tdx
