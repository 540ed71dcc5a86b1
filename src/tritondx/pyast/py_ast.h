// The kernel task's Python AST (from the bridge's `ast`/`capture` verbs) as C++ nodes,
// with the queries L0 rules ask: calls by dotted name, keyword arguments, constants, loops.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tdx {

struct PyNode {
  std::string type;   // "Call", "Attribute", "Name", "Constant", "For", "FunctionDef", ...
  std::string field;  // the parent's field holding this node: "func", "args", "keywords", "body", ...
  int index = -1;     // position within a list field
  int line = 0, col = 0, end_line = 0, end_col = 0;  // 1-based; col as Python's col_offset + 1
  nlohmann::json fields;  // scalar fields: {"id": "x"}, {"attr": "load"}, {"value": 3}, {"name": "k"}, {"op": "Mult"}
  std::vector<PyNode> children;
  const PyNode* parent = nullptr;

  // First child stored in `field` (index 0 for list fields), or nullptr.
  const PyNode* child(std::string_view field_name, int list_index = -1) const;
  std::vector<const PyNode*> children_in(std::string_view field_name) const;
  std::string str_field(std::string_view name) const;  // "" if absent or not a string
};

// "tl.load" for Call(func=Attribute(Name(tl), load)); "" when the callee is not a dotted name.
std::string dotted_name(const PyNode& node);
// The callee of a Call node as a dotted name.
std::string call_name(const PyNode& call);
// keyword argument `name` of a Call, or nullptr.
const PyNode* keyword(const PyNode& call, std::string_view name);
// positional argument i of a Call, or nullptr.
const PyNode* argument(const PyNode& call, int i);
// The positional argument or keyword of a Call that ends last in the source, or nullptr.
const PyNode* last_argument(const PyNode& call);
// The positional parameter names of a FunctionDef, in order.
std::vector<std::string> parameter_names(const PyNode& function_def);
// The expression `call` passes for parameter `param` of the function it calls (`function_def`,
// may be null: then keywords only): its keyword value, or the positional argument at the
// parameter's index; nullptr when the call does not pass it.
const PyNode* bound_argument(const PyNode& call, const PyNode* function_def, std::string_view param);
// The one statement `name = value` in `function` when that is the only binding of `name` there
// (no second assignment, augmented assignment or loop variable), else nullptr.
const PyNode* single_assignment(const PyNode& function, const std::string& name);
// The integer value of a Constant (or -Constant), if it is one.
std::optional<long long> int_constant(const PyNode& node);
std::optional<double> number_constant(const PyNode& node);
// Source text of a node, from the task's lines (single or multi-line span).
std::string node_text(const PyNode& node, const std::vector<std::string>& lines);
// `s` without blanks, tabs and newlines, for comparing two spellings of one expression.
std::string squash_blanks(std::string s);

class PyModule {
 public:
  static PyModule from_json(const nlohmann::json& module);
  const PyNode& root() const { return *root_; }
  // FunctionDef of the given name (top level), or nullptr.
  const PyNode* function(std::string_view name) const;
  // Pre-order walk of every node under `from`.
  static void walk(const PyNode& from, const std::function<void(const PyNode&)>& visit);
  // Every Call under `from` whose callee dotted name is one of `names` (e.g. {"tl.load", "triton.language.load"}).
  static std::vector<const PyNode*> calls(const PyNode& from, std::initializer_list<std::string_view> names);
  // The innermost For/While loop enclosing `node` (within its function), or nullptr.
  static const PyNode* enclosing_loop(const PyNode& node);
  // The statement holding `node` (the node itself, or the ancestor stored in a body/orelse
  // list), or nullptr.
  static const PyNode* enclosing_statement(const PyNode& node);
  // Is `node` (or one of its ancestors) `ancestor`?
  static bool inside(const PyNode& node, const PyNode& ancestor);
  // Every identifier a node reads (Name nodes in Load context).
  static std::set<std::string> names_read(const PyNode& node);
  // Every identifier a node writes (Name nodes in Store context, For targets included).
  static std::set<std::string> names_written(const PyNode& node);

 private:
  std::shared_ptr<PyNode> root_;
};

// Triton's language module is imported under different names (tl, triton.language, ...);
// maps "triton.language.X" and "tl.X" to "tl.X".
std::string normalize_triton_name(std::string_view dotted);

}  // namespace tdx
