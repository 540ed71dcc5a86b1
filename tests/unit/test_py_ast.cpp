// The Python AST queries L0 rules rely on, over the bridge's JSON for the example tasks
// (tests/fixtures/pyast/*.capture.json: `capture` replies of examples/*.py, trimmed).
#include <gtest/gtest.h>

#include <fstream>

#include "tritondx/pyast/py_ast.h"
#include "tritondx/task/task.h"

namespace tdx {
namespace {

nlohmann::json load_capture(const std::string& name) {
  std::ifstream in(std::string(TRITONDX_FIXTURES_DIR) + "/pyast/" + name + ".capture.json");
  return nlohmann::json::parse(in);
}

struct Example {
  Task task;
  PyModule module;
};

Example load_example(const std::string& name) {
  auto j = load_capture(name);
  return {task_from_json(j["task_info"]), PyModule::from_json(j["task_info"]["module"])};
}

TEST(PyAst, FindsTopLevelFunctionsWithSpans) {
  auto ex = load_example("vector_add");
  const PyNode* kernel = ex.module.function("add_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->type, "FunctionDef");
  EXPECT_EQ(kernel->line, 11);  // the `def` line; the decorator is a separate node
  EXPECT_EQ(kernel->end_line, 17);
  EXPECT_NE(ex.module.function("launch"), nullptr);
  EXPECT_EQ(ex.module.function("no_such_function"), nullptr);
  auto decorators = kernel->children_in("decorator_list");
  ASSERT_EQ(decorators.size(), 1u);
  EXPECT_EQ(dotted_name(*decorators[0]), "triton.jit");
  EXPECT_EQ(decorators[0]->line, 10);
}

TEST(PyAst, CallsByNormalizedDottedName) {
  auto ex = load_example("vector_add");
  const PyNode* kernel = ex.module.function("add_kernel");
  auto loads = PyModule::calls(*kernel, {"tl.load"});
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0]->line, 15);
  EXPECT_EQ(loads[1]->line, 16);
  EXPECT_EQ(call_name(*loads[0]), "tl.load");
  auto stores = PyModule::calls(*kernel, {"tl.store", "tl.atomic_add"});
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_EQ(stores[0]->line, 17);
  EXPECT_EQ(normalize_triton_name("triton.language.load"), "tl.load");
  EXPECT_EQ(normalize_triton_name("tl.math.exp"), "tl.math.exp");
  EXPECT_EQ(normalize_triton_name("torch.empty"), "torch.empty");
}

TEST(PyAst, ArgumentsKeywordsAndText) {
  auto ex = load_example("vector_add");
  const PyNode* kernel = ex.module.function("add_kernel");
  const PyNode* load = PyModule::calls(*kernel, {"tl.load"})[0];
  const PyNode* ptr = argument(*load, 0);
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(ptr->type, "BinOp");
  EXPECT_EQ(ptr->fields.value("op", ""), "Add");
  EXPECT_EQ(node_text(*ptr, ex.task.lines), "x_ptr + offsets");
  EXPECT_EQ(argument(*load, 1), nullptr);
  const PyNode* mask = keyword(*load, "mask");
  ASSERT_NE(mask, nullptr);
  EXPECT_EQ(mask->type, "Name");
  EXPECT_EQ(mask->str_field("id"), "mask");
  EXPECT_EQ(keyword(*load, "other"), nullptr);
  EXPECT_EQ(node_text(*load, ex.task.lines), "tl.load(x_ptr + offsets, mask=mask)");

  const PyNode* pid = PyModule::calls(*kernel, {"tl.program_id"})[0];
  const PyNode* axis = keyword(*pid, "axis");
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(int_constant(*axis), 0);
}

TEST(PyAst, IntegerAndNumberConstants) {
  auto ex = load_example("vector_add");
  // launch(): `add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)`
  const PyNode* launch = ex.module.function("launch");
  ASSERT_NE(launch, nullptr);
  const PyNode* call = nullptr;
  PyModule::walk(*launch, [&](const PyNode& n) {
    if (n.type == "Call" && n.child("func") && n.child("func")->type == "Subscript") call = &n;
  });
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->line, 24);
  const PyNode* block = keyword(*call, "BLOCK_SIZE");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(int_constant(*block), 1024);
  EXPECT_EQ(number_constant(*block), 1024.0);
  EXPECT_EQ(int_constant(*argument(*call, 0)), std::nullopt);  // a Name, not a constant

  // softmax: `-float("inf")` is not a number constant; `0.0` is.
  auto sm = load_example("softmax");
  const PyNode* kernel = sm.module.function("softmax_kernel");
  std::vector<const PyNode*> zeros;
  PyModule::walk(*kernel, [&](const PyNode& n) {
    if (n.type == "Constant" && n.fields.value("value", nlohmann::json()).is_number_float()) zeros.push_back(&n);
  });
  ASSERT_EQ(zeros.size(), 1u);  // denom = 0.0
  EXPECT_EQ(number_constant(*zeros[0]), 0.0);
  EXPECT_EQ(int_constant(*zeros[0]), std::nullopt);
}

TEST(PyAst, EnclosingLoopAndParents) {
  auto ex = load_example("softmax");
  const PyNode* kernel = ex.module.function("softmax_kernel");
  auto loads = PyModule::calls(*kernel, {"tl.load"});
  ASSERT_EQ(loads.size(), 3u);
  std::vector<int> loop_lines;
  for (const PyNode* l : loads) {
    const PyNode* loop = PyModule::enclosing_loop(*l);
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->type, "For");
    loop_lines.push_back(loop->line);
  }
  EXPECT_EQ(loop_lines, (std::vector<int>{19, 25, 30}));
  const PyNode* target = PyModule::enclosing_loop(*loads[0])->child("target");
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->str_field("id"), "start");
  // Nothing encloses the row's program id.
  const PyNode* pid = PyModule::calls(*kernel, {"tl.program_id"})[0];
  EXPECT_EQ(PyModule::enclosing_loop(*pid), nullptr);
  // Parent links lead back to the function.
  const PyNode* p = pid;
  while (p->parent && p->type != "FunctionDef") p = p->parent;
  EXPECT_EQ(p, kernel);
}

TEST(PyAst, SubscriptsAndMultiLineText) {
  auto ex = load_example("matmul");
  const PyNode* kernel = ex.module.function("matmul_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->line, 12);
  // The kernel's signature spans three lines.
  std::string text = node_text(*kernel, ex.task.lines);
  EXPECT_EQ(text.substr(0, text.find('\n')), "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,");
  auto dots = PyModule::calls(*kernel, {"tl.dot"});
  ASSERT_EQ(dots.size(), 1u);
  EXPECT_EQ(dots[0]->line, 30);
  int subscripts = 0;
  PyModule::walk(*kernel, [&](const PyNode& n) {
    if (n.type == "Subscript" && node_text(n, ex.task.lines) == "offs_m[:, None]") ++subscripts;
  });
  EXPECT_EQ(subscripts, 4);  // a_ptrs, the a mask, c_ptrs, the store mask
}

}  // namespace
}  // namespace tdx
