// The `--inputs` declaration of `tritondx task-from`: the launch's inputs, in order.
//
//   x: (8192, 4096) float16                  a tensor: shape and dtype (torch spellings too)
//   w: (4096,) torch.bfloat16 scale=0.1      a float tensor drawn from randn, times 0.1
//   idx: (4096,) int64 in [0, 32000)        an integer tensor drawn from [0, 32000)
//   n: int = 4096                            a scalar passed as it is
//
// Inputs are separated by commas outside parentheses and brackets.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tdx {

struct TensorDType {
  std::string name;  // torch's canonical name: "float16", "int64", "bool", ...
  int bytes = 0;
  bool is_float = false;
  bool is_bool = false;
  bool is_integer() const { return !is_float && !is_bool; }
};

// Looks up a dtype by any torch spelling ("half", "torch.float16", "long"); nullopt if unknown.
std::optional<TensorDType> find_dtype(std::string_view spelling);

// Values [lo, hi) of an integer tensor.
struct IntRange {
  long long lo = 0;
  long long hi = 0;
};

struct TensorInput {
  std::vector<long long> shape;
  TensorDType dtype;
  std::optional<IntRange> range;  // integer tensors only
  std::string scale;              // float tensors only: a number as written, "" for 1
};

struct ScalarInput {
  std::string type;   // "int", "float" or "bool"
  std::string value;  // a Python literal: "4096", "1e-05", "1.0", "True"
};

struct InputSpec {
  std::string name;
  int column = 0;  // 1-based, where the name starts in the declaration
  std::variant<TensorInput, ScalarInput> value;

  const TensorInput* tensor() const { return std::get_if<TensorInput>(&value); }
  const ScalarInput* scalar() const { return std::get_if<ScalarInput>(&value); }
};

struct SpecError {
  int column = 0;  // 1-based column of the offending token in the declaration
  std::string message;
};

std::expected<std::vector<InputSpec>, SpecError> parse_input_specs(std::string_view text);

// `text` on one line, then a caret under `column` (no newline after it), both indented by four blanks.
std::string caret_excerpt(std::string_view text, int column);

}  // namespace tdx
