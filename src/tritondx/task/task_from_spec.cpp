#include "tritondx/task/task_from_spec.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>

#include <fmt/format.h>

namespace tdx {

namespace {

struct DTypeSpelling {
  std::string_view spelling;
  std::string_view name;
  int bytes;
  bool is_float;
  bool is_bool;
};

constexpr std::array<DTypeSpelling, 16> kDTypes{{
    {"float16", "float16", 2, true, false},  {"half", "float16", 2, true, false},
    {"bfloat16", "bfloat16", 2, true, false}, {"float32", "float32", 4, true, false},
    {"float", "float32", 4, true, false},    {"float64", "float64", 8, true, false},
    {"double", "float64", 8, true, false},   {"int8", "int8", 1, false, false},
    {"int16", "int16", 2, false, false},     {"short", "int16", 2, false, false},
    {"int32", "int32", 4, false, false},     {"int", "int32", 4, false, false},
    {"int64", "int64", 8, false, false},     {"long", "int64", 8, false, false},
    {"uint8", "uint8", 1, false, false},     {"bool", "bool", 1, false, true},
}};

constexpr std::string_view kDTypeList =
    "float16/half, bfloat16, float32/float, float64/double, int8, int16, int32, int64, uint8, bool";

constexpr std::array<std::string_view, 35> kPythonKeywords{
    "False", "None",   "True",    "and",      "as",       "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",      "elif",     "else",   "except", "finally",  "for",
    "from",  "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",      "while",  "with",   "yield"};

// Names the generated code uses itself, so an input may not take them.
constexpr std::array<std::string_view, 2> kReservedNames{"torch", "_OUTPUT_BYTES"};

enum class TokenKind { Name, Number, Punct, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  int column = 0;
};

// Thrown inside the parser, returned as a SpecError by parse_input_specs.
struct SpecFailure {
  SpecError error;
};

[[noreturn]] void fail_at(int column, std::string message) { throw SpecFailure{{column, std::move(message)}}; }

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> out;
  size_t i = 0;
  auto column = [](size_t at) { return static_cast<int>(at) + 1; };
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t start = i;
    if (is_name_start(c)) {
      while (i < text.size() && (is_name_char(text[i]) || (text[i] == '.' && i + 1 < text.size() &&
                                                            is_name_start(text[i + 1]))))
        ++i;
      out.push_back({TokenKind::Name, std::string(text.substr(start, i - start)), column(start)});
      continue;
    }
    bool signed_number = (c == '-' || c == '+') && i + 1 < text.size() &&
                         (is_digit(text[i + 1]) || text[i + 1] == '.');
    if (is_digit(c) || signed_number || (c == '.' && i + 1 < text.size() && is_digit(text[i + 1]))) {
      if (signed_number) ++i;
      while (i < text.size() && (is_digit(text[i]) || text[i] == '_' || text[i] == '.')) ++i;
      if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        size_t exponent = i + 1;
        if (exponent < text.size() && (text[exponent] == '-' || text[exponent] == '+')) ++exponent;
        if (exponent < text.size() && is_digit(text[exponent])) {
          i = exponent;
          while (i < text.size() && is_digit(text[i])) ++i;
        }
      }
      out.push_back({TokenKind::Number, std::string(text.substr(start, i - start)), column(start)});
      continue;
    }
    if (std::string_view("(),:=[]").find(c) != std::string_view::npos) {
      out.push_back({TokenKind::Punct, std::string(1, c), column(start)});
      ++i;
      continue;
    }
    fail_at(column(start), fmt::format("unexpected character '{}'", c));
  }
  out.push_back({TokenKind::End, "", column(text.size())});
  return out;
}

std::string describe(const Token& t) {
  return t.kind == TokenKind::End ? "the end of the declaration" : fmt::format("'{}'", t.text);
}

std::optional<long long> parse_integer(std::string_view text) {
  std::string digits;
  for (char c : text)
    if (c != '_' && c != '+') digits += c;
  long long value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

bool is_number(std::string_view text) {
  std::string digits;
  for (char c : text)
    if (c != '_' && c != '+') digits += c;
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size();
}

bool looks_integral(std::string_view number) {
  return number.find_first_of(".eE") == std::string_view::npos;
}

// The values an integer dtype holds, as [lo, hi).
IntRange dtype_bounds(const TensorDType& dtype) {
  if (dtype.name == "uint8") return {0, 256};
  if (dtype.bytes == 8) return {std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max()};
  long long half = 1LL << (dtype.bytes * 8 - 1);
  return {-half, half};
}

class SpecParser {
 public:
  explicit SpecParser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  std::vector<InputSpec> parse() {
    std::vector<InputSpec> inputs;
    while (peek().kind != TokenKind::End) {
      InputSpec input = parse_input();
      for (const auto& earlier : inputs)
        if (earlier.name == input.name)
          fail_at(input.column, fmt::format("input '{}' is declared twice (first at column {})", input.name,
                                            earlier.column));
      inputs.push_back(std::move(input));
      if (peek().kind == TokenKind::End) break;
      if (!at(",")) fail_at(peek().column, fmt::format("expected ',' before the next input, got {}", describe(peek())));
      next();
    }
    return inputs;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  Token next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool at(std::string_view punct) const { return peek().kind == TokenKind::Punct && peek().text == punct; }
  bool at_name(std::string_view name) const { return peek().kind == TokenKind::Name && peek().text == name; }

  void expect(std::string_view punct, std::string_view context) {
    if (!at(punct)) fail_at(peek().column, fmt::format("expected '{}' {}, got {}", punct, context, describe(peek())));
    next();
  }

  InputSpec parse_input() {
    Token name = next();
    if (name.kind != TokenKind::Name)
      fail_at(name.column, fmt::format("expected an input name, got {}", describe(name)));
    check_name(name);
    expect(":", fmt::format("after the input name '{}'", name.text));
    InputSpec input{name.text, name.column, ScalarInput{}};
    if (at("(")) {
      input.value = parse_tensor(name.text);
      return input;
    }
    if (at_name("int") || at_name("float") || at_name("bool")) {
      input.value = parse_scalar(name.text);
      return input;
    }
    if (peek().kind == TokenKind::Name && find_dtype(peek().text))
      fail_at(peek().column, fmt::format("the shape of '{}' comes before its dtype: `{}: (d0, d1, ...) {}`",
                                         name.text, name.text, peek().text));
    fail_at(peek().column, fmt::format("expected a shape '(d0, d1, ...)' and a dtype, or a scalar type (int, float, "
                                       "bool), after '{}:', got {}",
                                       name.text, describe(peek())));
  }

  static void check_name(const Token& name) {
    if (name.text.find('.') != std::string::npos)
      fail_at(name.column, fmt::format("input name '{}' is not a Python identifier", name.text));
    if (std::ranges::find(kPythonKeywords, name.text) != kPythonKeywords.end())
      fail_at(name.column, fmt::format("'{}' is a Python keyword, not an input name", name.text));
    if (std::ranges::find(kReservedNames, name.text) != kReservedNames.end())
      fail_at(name.column, fmt::format("'{}' is used by the generated code; name the input otherwise", name.text));
  }

  TensorInput parse_tensor(const std::string& name) {
    TensorInput tensor;
    next();  // (
    while (!at(")")) {
      Token dim = next();
      if (dim.kind != TokenKind::Number)
        fail_at(dim.column, fmt::format("expected a dimension (a positive integer) in the shape of '{}', got {}", name,
                                        describe(dim)));
      auto value = looks_integral(dim.text) ? parse_integer(dim.text) : std::nullopt;
      if (!value || *value <= 0)
        fail_at(dim.column, fmt::format("dimension '{}' of '{}' is not a positive integer", dim.text, name));
      tensor.shape.push_back(*value);
      if (at(",")) next();
      else if (!at(")"))
        fail_at(peek().column, fmt::format("expected ',' or ')' in the shape of '{}', got {}", name, describe(peek())));
    }
    next();  // )
    Token dtype = next();
    auto found = dtype.kind == TokenKind::Name ? find_dtype(dtype.text) : std::nullopt;
    if (!found) {
      if (dtype.kind == TokenKind::Name)
        fail_at(dtype.column, fmt::format("unknown dtype '{}' for '{}' (dtypes: {})", dtype.text, name, kDTypeList));
      fail_at(dtype.column, fmt::format("expected a dtype after the shape of '{}', got {} (dtypes: {})", name,
                                        describe(dtype), kDTypeList));
    }
    tensor.dtype = *found;
    while (at_name("in") || at_name("scale")) {
      if (at_name("in")) parse_range(name, tensor);
      else parse_scale(name, tensor);
    }
    if (peek().kind == TokenKind::Name)
      fail_at(peek().column, fmt::format("unexpected {} after the dtype of '{}' (expected `in [lo, hi)`, `scale=S`, "
                                         "or ',' and the next input)",
                                         describe(peek()), name));
    return tensor;
  }

  long long parse_bound(const std::string& name) {
    Token t = next();
    auto value = t.kind == TokenKind::Number && looks_integral(t.text) ? parse_integer(t.text) : std::nullopt;
    if (!value)
      fail_at(t.column, fmt::format("expected an integer bound in the range of '{}', got {}", name, describe(t)));
    return *value;
  }

  void parse_range(const std::string& name, TensorInput& tensor) {
    Token in = next();
    if (!tensor.dtype.is_integer())
      fail_at(in.column, fmt::format("a value range is for integer tensors; '{}' is {}{}", name, tensor.dtype.name,
                                     tensor.dtype.is_float ? " (a float tensor takes scale=S)" : ""));
    if (tensor.range) fail_at(in.column, fmt::format("'{}' has two value ranges", name));
    int open = peek().column;
    expect("[", fmt::format("to open the range of '{}' (`in [lo, hi)`)", name));
    long long lo = parse_bound(name);
    expect(",", fmt::format("between the bounds of the range of '{}'", name));
    long long hi = parse_bound(name);
    if (!at(")") && !at("]"))
      fail_at(peek().column, fmt::format("expected ')' (hi excluded) or ']' (hi included) to close the range of '{}', "
                                         "got {}",
                                         name, describe(peek())));
    if (next().text == "]") {
      if (hi == std::numeric_limits<long long>::max())
        fail_at(open, fmt::format("the range of '{}' does not fit int64", name));
      ++hi;
    }
    if (lo >= hi) fail_at(open, fmt::format("the range [{}, {}) of '{}' is empty", lo, hi, name));
    IntRange bounds = dtype_bounds(tensor.dtype);
    bool int64 = tensor.dtype.bytes == 8;
    if (lo < bounds.lo || (!int64 && hi > bounds.hi))
      fail_at(open, fmt::format("the range [{}, {}) of '{}' does not fit {} ([{}, {}))", lo, hi, name,
                                tensor.dtype.name, bounds.lo, bounds.hi));
    tensor.range = IntRange{lo, hi};
  }

  void parse_scale(const std::string& name, TensorInput& tensor) {
    Token scale = next();
    if (!tensor.dtype.is_float)
      fail_at(scale.column, fmt::format("scale= is for float tensors; '{}' is {}{}", name, tensor.dtype.name,
                                        tensor.dtype.is_integer() ? " (an integer tensor takes `in [lo, hi)`)" : ""));
    if (!tensor.scale.empty()) fail_at(scale.column, fmt::format("'{}' has two scales", name));
    expect("=", "after scale");
    Token value = next();
    if (value.kind != TokenKind::Number || !is_number(value.text))
      fail_at(value.column, fmt::format("expected a number after scale= of '{}', got {}", name, describe(value)));
    tensor.scale = value.text;
  }

  ScalarInput parse_scalar(const std::string& name) {
    ScalarInput scalar{next().text, ""};
    expect("=", fmt::format("and a value after '{}: {}' (a scalar input: `{}: {} = VALUE`; a tensor starts with "
                            "its shape)",
                            name, scalar.type, name, scalar.type));
    Token value = next();
    if (scalar.type == "bool") {
      if (value.text == "True" || value.text == "true") scalar.value = "True";
      else if (value.text == "False" || value.text == "false") scalar.value = "False";
      else fail_at(value.column, fmt::format("bool input '{}' needs True or False, got {}", name, describe(value)));
      return scalar;
    }
    if (value.kind != TokenKind::Number || !is_number(value.text))
      fail_at(value.column, fmt::format("{} input '{}' needs a number, got {}", scalar.type, name, describe(value)));
    if (scalar.type == "int") {
      auto integer = looks_integral(value.text) ? parse_integer(value.text) : std::nullopt;
      if (!integer)
        fail_at(value.column, fmt::format("int input '{}' needs an integer, got {}", name, describe(value)));
      scalar.value = std::to_string(*integer);
    } else {
      // A float scalar stays a Python float even when written as an integer: Triton types it by its value.
      scalar.value = looks_integral(value.text) ? value.text + ".0" : value.text;
    }
    return scalar;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<TensorDType> find_dtype(std::string_view spelling) {
  if (spelling.starts_with("torch.")) spelling.remove_prefix(6);
  for (const auto& d : kDTypes)
    if (d.spelling == spelling) return TensorDType{std::string(d.name), d.bytes, d.is_float, d.is_bool};
  return std::nullopt;
}

std::expected<std::vector<InputSpec>, SpecError> parse_input_specs(std::string_view text) {
  try {
    return SpecParser(tokenize(text)).parse();
  } catch (const SpecFailure& f) {
    return std::unexpected(f.error);
  }
}

std::string caret_excerpt(std::string_view text, int column) {
  std::string line(text);
  std::ranges::replace(line, '\n', ' ');
  std::ranges::replace(line, '\t', ' ');
  int pad = std::max(0, column - 1);
  return "    " + line + "\n    " + std::string(static_cast<size_t>(pad), ' ') + "^";
}

}  // namespace tdx
