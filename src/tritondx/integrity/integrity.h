// Anti-cheating checks on optimized candidates (benchmark-protocol.md section 2.3).
//
// A candidate is a rewritten task file; the original is the task it must stay faithful to.
// The static check compares the two Python ASTs (from the bridge's `ast` verb) and reports
// every trick it can see in the source: no Triton kernel launched, a changed signature or
// reference, PyTorch compute, fallbacks, side streams, caches keyed by pointer, patched
// timers, environment writes, precision downgrades beyond the task's tolerance.
// The runtime checks live on the bridge side (python/tritondx_bridge/integrity_runtime.py
// and integrity_gpu.py, the `run` verb's "integrity" option); their ids are listed here too,
// so one catalogue covers both. docs/integrity.md describes every id.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tritondx/bridge/bridge.h"
#include "tritondx/core/diagnostic.h"
#include "tritondx/pyast/py_ast.h"

namespace tdx::integrity {

// One broken rule: a stable id (`integrity-...`), the candidate line (0 when unknown) and why.
struct Violation {
  std::string id;
  int line = 0;
  std::string message;
};

void to_json(nlohmann::json& j, const Violation& v);
void from_json(const nlohmann::json& j, Violation& v);

// A task file as the static check sees it: its AST and its text.
struct TaskSource {
  std::string path;
  std::string source;
  std::vector<std::string> lines;  // lines[0] is line 1
  PyModule module;
};

// From an `ast` reply of the bridge ({"path", "source", "module", ...}).
TaskSource task_source_from_ast_reply(const nlohmann::json& reply);
// Asks the bridge's `ast` verb with "parse_only": the file is read and parsed, not imported, so
// none of an untrusted candidate's code runs.
Expected<TaskSource> load_task_source(const Bridge& bridge, const std::string& path);

enum class CheckKind { Static, Runtime, Both };

struct CheckInfo {
  std::string_view id;
  CheckKind kind;
  std::string_view description;
};

// Every check id, sorted; the static ones are run by check_static, the runtime ones by the
// bridge (`run` with "integrity").
std::span<const CheckInfo> checks();
const CheckInfo* find_check(std::string_view id);

// Runs every static check on `candidate` against `original`. Empty = clean. Violations are
// sorted by line, then id; one trick may trip more than one check.
std::vector<Violation> check_static(const TaskSource& original, const TaskSource& candidate);

// Loads both files through the bridge and runs check_static.
Expected<std::vector<Violation>> check_static_files(const Bridge& bridge, const std::string& original_path,
                                                   const std::string& candidate_path);

// Folds runtime violations out of a `run` reply ({"integrity": {"violations": [...]}}); an
// integrity "error" (the checks could not run) becomes an `integrity-unverified` violation.
std::vector<Violation> runtime_violations(const nlohmann::json& run_reply);

}  // namespace tdx::integrity

template <>
struct fmt::formatter<tdx::integrity::Violation> : fmt::formatter<std::string_view> {
  auto format(const tdx::integrity::Violation& v, fmt::format_context& ctx) const {
    return fmt::format_to(ctx.out(), "line {}: {} [{}]", v.line, v.message, v.id);
  }
};
