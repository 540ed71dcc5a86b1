// Printing a failure: the diagnostic, the source line with a caret, and the detail that helps.
#pragma once

#include <string>

#include "tritondx/bridge/bridge.h"

namespace tdx::cli {

// Formats a bridge failure for the terminal: `file:line:col: stage: message`, then the
// source line and a caret, then Triton's own message when the failure is a compile error.
std::string format_failure(const BridgeFailure& failure);

// Writes `text` to `path`, or stdout when path is empty or "-". False (with a message on
// stderr) if the file cannot be written.
bool write_output(const std::string& path, const std::string& text);

}  // namespace tdx::cli
