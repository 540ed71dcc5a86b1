// Internal to the MLIR parser: the #loc table (mlir_locations.cpp), the type cache and type
// assignment (mlir_op_types.cpp) and the parser of one op's text (mlir_op.cpp), used by
// parse_mlir (mlir_parser.cpp).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tritondx/ir/mlir.h"

namespace tdx::mlir_detail {

// ---- mlir_locations.cpp

// A location resolved through the table; views point into the IR text.
struct ResolvedLoc {
  std::string_view file;
  int line = 0, col = 0;
  std::string_view cs_file;  // outermost caller of a callsite
  int cs_line = 0, cs_col = 0;
  std::string_view name;     // from a named location
};

// The `#locN = loc(...)` definitions. Definitions may follow their uses (most are printed
// after the module), so resolution runs once everything is read.
class LocTable {
 public:
  void define(std::string_view alias, std::string_view expr, int line);
  // Resolves the inside of a `loc(...)`: an alias ("#loc24") or an inline location. On failure
  // returns false with `error` set (e.g. an undefined alias).
  bool resolve(std::string_view expr, ResolvedLoc& out, std::string& error);
  // Resolves every definition; on failure returns the line of the bad definition (> 0).
  int resolve_all(std::string& error);
  void fill(MlirModule& m) const;  // MlirModule::locs and loc_names

 private:
  struct Def {
    std::string_view alias, expr;
    int line = 0;
    int state = 0;  // 0 unresolved, 1 resolving, 2 done
    ResolvedLoc value;
  };
  bool parse(std::string_view& s, ResolvedLoc& out, std::string& error);
  bool resolve_alias(std::string_view alias, ResolvedLoc& out, std::string& error);

  std::vector<Def> defs_;
  std::unordered_map<std::string_view, int> index_;
};

SourceLoc to_source_loc(std::string_view file, int line, int col);

// ---- mlir_op_types.cpp

// Parses type texts once each (they repeat on nearly every line), records the aliases they
// use and registers inline layout encodings on the module.
class TypeContext {
 public:
  explicit TypeContext(MlirModule& m) : module_(m) {}
  const MlirType& get(std::string_view text, int line);

  bool enabled = true;  // false: ops get no operand/result types
  std::unordered_map<std::string_view, int> alias_uses;  // "#blocked" -> first line using it
  std::string error;  // first malformed type
  int error_line = 0;

 private:
  MlirModule& module_;
  std::unordered_map<std::string_view, MlirType> cache_;
  MlirType empty_;
};

// Depth-0 positions inside a type list ("a, b -> c", "a * b -> c", "a to b").
struct Marks {
  static constexpr int kMaxCommas = 32;
  size_t arrow = std::string_view::npos, star = std::string_view::npos, to = std::string_view::npos;
  size_t commas[kMaxCommas];
  int n_commas = 0;
  bool overflow = false;  // more commas than recorded: split with for_each_top instead

  void shift(size_t base) {
    if (arrow != std::string_view::npos) arrow -= base;
    if (star != std::string_view::npos) star -= base;
    if (to != std::string_view::npos) to -= base;
    for (int k = 0; k < n_commas; ++k) commas[k] -= base;
  }
};


// Fills op.operand_types/result_types from the text after ` : ` (mlir_op_types.cpp); marks
// are relative to `types_text`.
void assign_types(std::string_view types_text, const Marks& marks, MlirOp& op, TypeContext& tc,
                  int line);
// Appends the types of a comma-separated list; "(a, b)" expands to its members.
void type_list(std::string_view s, std::vector<MlirType>& out, TypeContext& tc, int line);

// ---- mlir_op.cpp

enum class OpTextStatus { Ok, NeedMore, Error };

struct OpTextResult {
  OpTextStatus status = OpTextStatus::Ok;
  std::string error;          // when status == Error
  std::string_view loc;       // inside of the trailing loc(...), empty if none
  int region_opens = 0;       // '{' left open at the end of the text
  bool is_function = false;   // tt.func / llvm.func / func.func header
};

// Parses one op (results, name, operands, attributes, types, loc); `text` is trimmed and
// may span lines when an op continues (llvm.switch case lists).
OpTextResult parse_op_text(std::string_view text, int line, MlirOp& op, TypeContext& types,
                           MlirFunction* function);

// Parses what follows the '}' that closes op's last region: `) : (...) -> ...`,
// `{tt.num_stages = 3 : i32}`, `loc(...)`. Returns an error message or empty.
std::string parse_closing_tail(std::string_view tail, int line, MlirOp& op, TypeContext& types,
                               std::string_view& loc);

}  // namespace tdx::mlir_detail
