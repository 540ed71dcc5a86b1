// The `--inputs` declaration of `tritondx task-from`, the separator cut and the generated text.
#include <gtest/gtest.h>

#include "tritondx/task/task_from.h"
#include "tritondx/task/task_from_spec.h"

namespace tdx {
namespace {

std::vector<InputSpec> parse_ok(std::string_view text) {
  auto parsed = parse_input_specs(text);
  EXPECT_TRUE(parsed.has_value()) << text << ": column " << parsed.error().column << ": " << parsed.error().message;
  return parsed.value_or(std::vector<InputSpec>{});
}

SpecError parse_error(std::string_view text) {
  auto parsed = parse_input_specs(text);
  EXPECT_FALSE(parsed.has_value()) << text << " parsed";
  return parsed ? SpecError{} : parsed.error();
}

TEST(TaskFromSpec, TensorsInOrderWithShapesAndDtypes) {
  auto inputs = parse_ok("x: (8192, 4096) float16, w: (4096,) float16");
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].name, "x");
  EXPECT_EQ(inputs[0].column, 1);
  ASSERT_NE(inputs[0].tensor(), nullptr);
  EXPECT_EQ(inputs[0].tensor()->shape, (std::vector<long long>{8192, 4096}));
  EXPECT_EQ(inputs[0].tensor()->dtype.name, "float16");
  EXPECT_EQ(inputs[0].tensor()->dtype.bytes, 2);
  EXPECT_EQ(inputs[1].name, "w");
  EXPECT_EQ(inputs[1].column, 26);
  EXPECT_EQ(inputs[1].tensor()->shape, (std::vector<long long>{4096}));
}

TEST(TaskFromSpec, DtypeSpellingsOfTorch) {
  const std::pair<const char*, const char*> spellings[] = {
      {"half", "float16"},   {"torch.float16", "float16"}, {"torch.bfloat16", "bfloat16"}, {"float", "float32"},
      {"float32", "float32"}, {"double", "float64"},        {"int", "int32"},               {"long", "int64"},
      {"torch.int64", "int64"}, {"uint8", "uint8"},        {"int8", "int8"},               {"short", "int16"},
      {"bool", "bool"}};
  for (const auto& [spelling, name] : spellings) {
    auto inputs = parse_ok(std::string("t: (4,) ") + spelling);
    ASSERT_EQ(inputs.size(), 1u) << spelling;
    EXPECT_EQ(inputs[0].tensor()->dtype.name, name) << spelling;
  }
  EXPECT_TRUE(find_dtype("torch.bool")->is_bool);
  EXPECT_TRUE(find_dtype("bfloat16")->is_float);
  EXPECT_TRUE(find_dtype("int64")->is_integer());
  EXPECT_FALSE(find_dtype("float17"));
}

TEST(TaskFromSpec, IntegerRangeHalfOpenOrClosed) {
  auto inputs = parse_ok("idx: (4096,) int64 in [0, 32000), pos: (8, 16) int32 in [-5, 5]");
  ASSERT_EQ(inputs.size(), 2u);
  ASSERT_TRUE(inputs[0].tensor()->range);
  EXPECT_EQ(inputs[0].tensor()->range->lo, 0);
  EXPECT_EQ(inputs[0].tensor()->range->hi, 32000);
  EXPECT_EQ(inputs[1].tensor()->range->lo, -5);
  EXPECT_EQ(inputs[1].tensor()->range->hi, 6);
}

TEST(TaskFromSpec, ScalarsAndScale) {
  auto inputs = parse_ok("x: (2, 3) bfloat16 scale=0.1, n: int = 4_096, eps: float = 1e-5, alpha: float = 2, "
                         "causal: bool = true");
  ASSERT_EQ(inputs.size(), 5u);
  EXPECT_EQ(inputs[0].tensor()->scale, "0.1");
  ASSERT_NE(inputs[1].scalar(), nullptr);
  EXPECT_EQ(inputs[1].scalar()->type, "int");
  EXPECT_EQ(inputs[1].scalar()->value, "4096");
  EXPECT_EQ(inputs[2].scalar()->value, "1e-5");
  EXPECT_EQ(inputs[3].scalar()->value, "2.0");  // a float scalar stays a float
  EXPECT_EQ(inputs[4].scalar()->value, "True");
}

TEST(TaskFromSpec, ZeroDimensionalTensorAndNoInputs) {
  auto inputs = parse_ok("s: () float32,");
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_TRUE(inputs[0].tensor()->shape.empty());
  EXPECT_TRUE(parse_ok("").empty());
  EXPECT_TRUE(parse_ok("   ").empty());
}

TEST(TaskFromSpec, ErrorsNameTheColumnOfTheBadToken) {
  struct Case {
    const char* text;
    int column;
    const char* says;
  };
  const Case cases[] = {
      {"x: (8192, 4096) float17", 17, "unknown dtype 'float17'"},
      {"x (8192,) float16", 3, "expected ':' after the input name 'x', got '('"},
      {"x: (8192, 0) float16", 11, "dimension '0' of 'x' is not a positive integer"},
      {"x: (8192, n) float16", 11, "expected a dimension"},
      {"x: (8192, 4.5) float16", 11, "not a positive integer"},
      {"x: (8192,", 10, "the end of the declaration"},
      {"x: (8192,) float16 w: (4,) float16", 20, "unexpected 'w' after the dtype of 'x'"},
      {"x: (8192,) float16, x: (4,) float16", 21, "input 'x' is declared twice (first at column 1)"},
      {"x: (8,) float16 in [0, 10)", 17, "a value range is for integer tensors; 'x' is float16"},
      {"i: (8,) int64 in [5, 5)", 18, "the range [5, 5) of 'i' is empty"},
      {"i: (8,) int8 in [0, 1000)", 17, "does not fit int8 ([-128, 128))"},
      {"i: (8,) uint8 in [-1, 10)", 18, "does not fit uint8"},
      {"i: (8,) int64 in [0, 10", 24, "expected ')' (hi excluded) or ']' (hi included)"},
      {"i: (8,) int64 scale=2", 15, "scale= is for float tensors"},
      {"n: int = 4.5", 10, "int input 'n' needs an integer"},
      {"n: int 4096", 8, "expected '=' and a value after 'n: int'"},
      {"flag: bool = 1", 14, "bool input 'flag' needs True or False"},
      {"x: float16 (8,)", 4, "the shape of 'x' comes before its dtype"},
      {"x: tensor", 4, "expected a shape '(d0, d1, ...)' and a dtype"},
      {"in: (8,) float16", 1, "'in' is a Python keyword"},
      {"torch: (8,) float16", 1, "used by the generated code"},
      {"x.y: (8,) float16", 1, "not a Python identifier"},
      {"x: (8,) float16; y", 16, "unexpected character ';'"},
      {"x: (8,) float16 scale=abc", 23, "expected a number after scale="},
  };
  for (const auto& c : cases) {
    SpecError e = parse_error(c.text);
    EXPECT_EQ(e.column, c.column) << c.text << ": " << e.message;
    EXPECT_NE(e.message.find(c.says), std::string::npos) << c.text << ": " << e.message;
  }
}

TEST(TaskFromSpec, CaretPointsAtTheColumn) {
  EXPECT_EQ(caret_excerpt("x: (4,) f", 9), "    x: (4,) f\n            ^");
}

TEST(TaskFromSeparator, DropsTheSeparatorAndEverythingAfterIt) {
  auto cut = split_at_test_separator("import triton\n\ndef f():\n    pass\n" + std::string(30, '#') +
                                     "  \n\ndef test():\n    print(f())\n");
  EXPECT_TRUE(cut.has_separator);
  EXPECT_EQ(cut.kept, "import triton\n\ndef f():\n    pass\n");
  EXPECT_EQ(cut.kept_lines, 4);
  EXPECT_EQ(cut.dropped_lines, 4);
}

TEST(TaskFromSeparator, ShortRulesAndCommentsAreNotSeparators) {
  std::string source = "# " + std::string(40, '#') + "\n" + std::string(19, '#') + "\nx = 1\n";
  auto cut = split_at_test_separator(source);
  EXPECT_FALSE(cut.has_separator);
  EXPECT_EQ(cut.kept, source);
  EXPECT_EQ(cut.kept_lines, 3);
  EXPECT_EQ(cut.dropped_lines, 0);
}

TEST(TaskFromRender, GeneratedSectionMakesEveryInputAndCountsBytes) {
  TaskText t;
  t.command = "tritondx task-from k.py --call 'g(ids, table, n)' --inputs '...'";
  t.source_path = "/src/k.py";
  t.kernel_file = split_at_test_separator("import triton\n");
  t.inputs = parse_ok("ids: (4096,) int64 in [0, 32000), table: (32000, 64) float16 scale=0.5, "
                      "m: (4, 4) bool, c: (3,) int32, n: int = 7");
  t.call = " g(ids, table, n) ";
  t.output_bytes = 524288;
  t.outputs_described = "float16 (4096, 64)";
  std::string text = render_task(t);
  EXPECT_TRUE(text.starts_with("# Generated by `tritondx task-from` from /src/k.py:\n#   tritondx task-from k.py"));
  EXPECT_NE(text.find("whole text"), std::string::npos);
  EXPECT_NE(text.find("\nimport triton\n"), std::string::npos);
  EXPECT_NE(text.find("def launch(ids, table, m, c, n):\n    return g(ids, table, n)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("torch.randint(0, 32000, (4096,), dtype=torch.int64, device=device),  # ids"),
            std::string::npos);
  EXPECT_NE(text.find("torch.randn((32000, 64), dtype=torch.float16, device=device) * 0.5,  # table"),
            std::string::npos);
  EXPECT_NE(text.find("torch.rand((4, 4), device=device) > 0.5,  # m"), std::string::npos);
  EXPECT_NE(text.find("torch.randint(0, 128, (3,), dtype=torch.int32, device=device),  # c"), std::string::npos);
  EXPECT_NE(text.find("        7,  # n\n"), std::string::npos);
  EXPECT_NE(text.find("(float16 (4096, 64)), measured by `tritondx task-from`"), std::string::npos);
  EXPECT_NE(text.find("_OUTPUT_BYTES = 524288\n"), std::string::npos);
  EXPECT_NE(text.find("def bytes_moved(*inputs):"), std::string::npos);
  EXPECT_EQ(text.find("def reference"), std::string::npos);
}

TEST(TaskFromRender, HeaderSaysHowManyLinesWereDropped) {
  TaskText t;
  t.command = "tritondx task-from b.py";
  t.source_path = "/src/b.py";
  t.kernel_file = split_at_test_separator("x = 1\n" + std::string(25, '#') + "\nprint(x)\nprint(x)\n");
  EXPECT_NE(render_task_header(t).find("the 3 line(s) from that line on"), std::string::npos) << render_task_header(t);
}

TEST(TaskFromRender, CommandLineQuotesForTheShell) {
  TaskFromOptions o{"k.py", "f(x, eps=1e-6)", "x: (4,) float16", "", true};
  EXPECT_EQ(task_from_command_line(o),
            "tritondx task-from k.py --call 'f(x, eps=1e-6)' --inputs 'x: (4,) float16' --force");
  o.call = "f(x, s='a')";
  EXPECT_NE(task_from_command_line(o).find("--call 'f(x, s='\\''a'\\'')'"), std::string::npos);
}

}  // namespace
}  // namespace tdx
