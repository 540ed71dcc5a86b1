// The parsers under fuzzing, one entry each: a name (the target fuzz_<name>), the stage its
// errors must carry, and how to run it on one input. Shared by the fuzz targets and the
// regression test that replays fuzz/regressions/<name>/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/ir/llvm_ir.h"
#include "tritondx/ir/mlir.h"
#include "tritondx/ir/pass_dump.h"
#include "tritondx/ir/ptx.h"
#include "tritondx/ir/sass.h"
#include "tritondx/measure/ncu_profile.h"
#include "tritondx/rewrite/llm/reply_text.h"

namespace tdx::fuzz {

struct Target {
  std::string_view name;
  Stage stage;
  // The parser's error, if it rejected the input.
  std::optional<Diagnostic> (*run)(std::string_view input);
};

template <class T>
std::optional<Diagnostic> error_of(const Expected<T>& result) {
  if (result) return std::nullopt;
  return result.error();
}

inline std::optional<Diagnostic> run_ttgir(std::string_view in) { return error_of(parse_mlir(in, Stage::Ttgir)); }
inline std::optional<Diagnostic> run_llvm_ir(std::string_view in) { return error_of(parse_llvm_ir(in)); }
inline std::optional<Diagnostic> run_ptx(std::string_view in) { return error_of(parse_ptx(in)); }
inline std::optional<Diagnostic> run_sass(std::string_view in) { return error_of(parse_sass(in)); }
inline std::optional<Diagnostic> run_pass_dump(std::string_view in) { return error_of(split_pass_dump(in)); }

// The three pages of an ncu export share one input; the first error counts.
inline std::optional<Diagnostic> run_ncu_csv(std::string_view in) {
  NcuProfile profile;
  if (auto e = error_of(parse_ncu_details_csv(in, profile))) return e;
  if (auto e = error_of(parse_ncu_raw_csv(in, profile))) return e;
  return error_of(parse_ncu_source_csv(in, profile));
}

inline std::optional<Diagnostic> run_llm_reply(std::string_view in) {
  std::string reply(in);
  (void)reply_summary(reply);
  return error_of(extract_python_code(reply));
}

inline const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"ttgir", Stage::Ttgir, run_ttgir},       {"llvm_ir", Stage::Llir, run_llvm_ir},
      {"ptx", Stage::Ptx, run_ptx},             {"sass", Stage::Sass, run_sass},
      {"pass_dump", Stage::PassDump, run_pass_dump}, {"ncu_csv", Stage::Profile, run_ncu_csv},
      {"llm_reply", Stage::Llm, run_llm_reply},
  };
  return all;
}

}  // namespace tdx::fuzz
