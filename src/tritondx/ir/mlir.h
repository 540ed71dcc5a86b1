// TTIR / TTGIR modules parsed from Triton's MLIR text.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"
#include "tritondx/core/source_loc.h"
#include "tritondx/ir/layout.h"

namespace tdx {

// A type as printed by MLIR: `tensor<128x64xf16, #blocked>`, `!tt.ptr<f32>`, `i32`,
// `tensor<1024x!tt.ptr<f32>, #blocked>`, `!ttg.memdesc<...>`, ...
struct MlirType {
  std::string text;
  bool is_tensor = false;
  std::vector<int64_t> shape;  // tensors and memdescs
  std::string element;         // "f32", "!tt.ptr<f16>", "i1"
  std::string encoding;        // "#blocked1" or inline attribute text; empty if none
  bool is_pointer = false;     // element (or scalar) is !tt.ptr<...>
  std::string pointee;         // "f16" for !tt.ptr<f16>
  int element_bits() const;    // bit width of element (pointee for pointers excluded); 0 if unknown
                               // (a pointer element counts 64 bits: the address)
  int64_t num_elements() const;  // product of shape; 1 for scalars; 0 if a dimension is dynamic

  // The same shape and encoding with another element ("i1" for a mask, the pointee for a load).
  MlirType with_element(std::string_view element) const;
};

Expected<MlirType> parse_mlir_type(std::string_view text);

struct MlirAttribute {
  std::string name;
  std::string value;  // as printed, e.g. "16 : i32", "true", "[1, 0]"
};

struct MlirOp {
  int index = 0;  // position in MlirModule::ops
  int line = 0;   // 1-based line in the IR text
  std::string name;                  // "tt.load", "arith.addi", "scf.for"
  std::vector<std::string> results;  // "%x_5" (multi-results as "%0#1" are expanded to "%0", count in result_count)
  int result_count = 0;              // values defined: 3 for `%acc:3 = scf.for`, 2 for `%a, %b = ...`
  std::vector<std::string> operands; // SSA operands in order, e.g. "%x_4", "%m_3", "%acc#0"
  std::vector<MlirType> result_types;
  std::vector<MlirType> operand_types;  // when the op prints them (`: (a, b) -> c` or `: a, b`);
                                        // operand_types[i] belongs to operands[i], may be shorter
  std::vector<MlirAttribute> attributes;  // from the `{...}` dictionary and known inline forms
  std::string loc_ref;  // "#loc24" or inline loc text (region ops: from their closing line)
  SourceLoc loc;        // resolved through the #loc table (callsite -> the callee's location)
  SourceLoc call_site;  // for loc(callsite(a at b)): b resolved to the outermost caller
                        // (the kernel's own line for inlined helpers); otherwise unknown
  std::string loc_name; // the name in loc("x"(#loc7)), e.g. "x" (callsite: callee's, else caller's)
  int parent = -1;      // index of the enclosing region op (scf.for, scf.if, tt.func), -1 at module level
  int depth = 0;        // region nesting depth: tt.func 0, its body 1, an scf.for body 2, ...
  std::string text;     // the op's full text (one line; trailing loc(...) kept)

  const MlirAttribute* attribute(std::string_view name) const;
  std::optional<int64_t> int_attribute(std::string_view name) const;
};

struct MlirArgument {
  std::string name;  // "%x_ptr"
  MlirType type;
  std::vector<MlirAttribute> attributes;  // {tt.divisibility = 16 : i32}
  std::optional<int64_t> int_attribute(std::string_view name) const;
};

struct MlirFunction {
  std::string name;  // "add_kernel"
  bool is_public = false;
  std::vector<MlirArgument> arguments;
  int line = 0;
  int op = -1;        // index of the tt.func op itself in MlirModule::ops
  int first_op = -1;  // index range [first_op, end_op) in MlirModule::ops (the body, nested included)
  int end_op = -1;
};

struct MlirModule {
  Stage stage = Stage::Ttir;
  std::map<std::string, Layout> layouts;   // "#blocked" -> layout (every #ttg/#ttng alias)
  std::map<std::string, Layout> inline_layouts;  // encodings written inline in types, by text
  std::map<std::string, SourceLoc> locs;   // "#loc24" -> resolved file:line:col
  std::map<std::string, std::string> loc_names;  // "#loc24" -> "x" (named locations)
  std::vector<MlirAttribute> module_attributes;  // "ttg.num-warps" = 4 : i32, ...
  std::vector<MlirFunction> functions;
  std::vector<MlirOp> ops;  // every op of every function, in text order (nested ones included)
  std::unordered_map<std::string, int> value_defs;  // "%x_5" -> index of its op (first definition)

  std::optional<int64_t> num_warps() const;
  std::optional<int64_t> threads_per_warp() const;
  std::optional<int64_t> shared_bytes() const;  // "ttg.shared"
  std::string target() const;                    // "cuda:90"
  const MlirOp* defining_op(std::string_view value) const;  // op whose results include value
  const Layout* layout(std::string_view encoding) const;    // resolves "#blocked" or inline text
};

// What parse_mlir materializes; the defaults give everything. Copying types into every op
// is about a third of the time, so a per-pass dump view that needs only op names, operands,
// attributes and locations can turn it off.
struct MlirParseOptions {
  bool types = true;    // MlirOp::operand_types/result_types, inline_layouts, alias-use checks
  bool op_text = true;  // MlirOp::text
};

// Parses TTIR or TTGIR text. Unknown ops are kept generically; malformed text gives a
// Diagnostic with the stage and the IR line number.
Expected<MlirModule> parse_mlir(std::string_view text, Stage stage);
Expected<MlirModule> parse_mlir(std::string_view text, Stage stage, const MlirParseOptions& options);

}  // namespace tdx
