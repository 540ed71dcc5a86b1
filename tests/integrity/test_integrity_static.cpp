// The adversarial suite: every tests/integrity/cheats/*.py names its original
// (`# ORIGINAL: examples/softmax.py`) and the violations the static check must report
// (`# REJECT: <id>`, one line each); a cheat with only `# REJECT-RUNTIME:` lines is one the
// static check cannot see (tests/python/test_integrity_runtime.py catches it) and must pass it.
// Every tests/integrity/honest/*.py must pass with no violation. The original a fixture
// names is an example (examples/*.py) or, for a task the examples lack, a task file under
// tests/integrity/originals/ (layer_norm.py: the original of the autograd.Function fixtures);
// tests/python/test_integrity_runtime.py knows tiny inputs for each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "integrity_test_support.h"
#include "tritondx/integrity/integrity.h"

namespace tdx::integrity {
namespace {

using namespace test_support;

struct Fixture {
  std::string name;
  fs::path path;
  fs::path original;
  std::set<std::string> reject;          // static ids
  std::set<std::string> reject_runtime;  // runtime ids
};

Fixture read_fixture(const fs::path& path) {
  Fixture f{path.stem().string(), path, {}, {}, {}};
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line.starts_with("# ")) {
    auto value = [&](std::string_view key) { return line.substr(key.size()); };
    if (line.starts_with("# ORIGINAL: ")) f.original = kRoot / value("# ORIGINAL: ");
    else if (line.starts_with("# REJECT: ")) f.reject.insert(value("# REJECT: "));
    else if (line.starts_with("# REJECT-RUNTIME: ")) f.reject_runtime.insert(value("# REJECT-RUNTIME: "));
  }
  return f;
}

std::vector<Fixture> fixtures(const std::string& folder) {
  std::vector<Fixture> out;
  for (const auto& e : fs::directory_iterator(kRoot / "tests" / "integrity" / folder))
    if (e.path().extension() == ".py") out.push_back(read_fixture(e.path()));
  std::ranges::sort(out, {}, &Fixture::name);
  return out;
}

class CheatTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(CheatTest, RejectedWithTheRightReason) {
  const Fixture& f = GetParam();
  ASSERT_FALSE(f.original.empty()) << f.path << " has no `# ORIGINAL:` header";
  ASSERT_FALSE(f.reject.empty() && f.reject_runtime.empty()) << f.path << " names no expected violation";
  auto violations = check_static(load(f.original), load(f.path));
  if (std::getenv("TRITONDX_INTEGRITY_VERBOSE")) fmt::print("{}:{}\n", f.name, describe(violations));
  std::set<std::string> ids;
  for (const auto& v : violations) {
    ids.insert(v.id);
    EXPECT_GT(v.line, 0) << v.id << " without a line";
    EXPECT_NE(find_check(v.id), nullptr) << v.id << " is not in the catalogue";
  }
  for (const auto& want : f.reject)
    EXPECT_TRUE(ids.contains(want)) << f.name << ": expected " << want << "; got" << describe(violations);
  if (f.reject.empty()) {
    EXPECT_TRUE(violations.empty()) << f.name << " is a runtime-only cheat, but the static check reports"
                                    << describe(violations);
  }
  for (const auto& id : f.reject_runtime) {
    const CheckInfo* info = find_check(id);
    ASSERT_NE(info, nullptr) << id;
    EXPECT_NE(info->kind, CheckKind::Static) << id << " is not a runtime check";
  }
}

INSTANTIATE_TEST_SUITE_P(Cheats, CheatTest, ::testing::ValuesIn(fixtures("cheats")),
                         [](const auto& info) { return info.param.name; });

class HonestTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(HonestTest, Passes) {
  const Fixture& f = GetParam();
  ASSERT_FALSE(f.original.empty()) << f.path << " has no `# ORIGINAL:` header";
  auto violations = check_static(load(f.original), load(f.path));
  EXPECT_TRUE(violations.empty()) << f.name << ":" << describe(violations);
}

INSTANTIATE_TEST_SUITE_P(Honest, HonestTest, ::testing::ValuesIn(fixtures("honest")),
                         [](const auto& info) { return info.param.name; });

TEST(IntegrityStatic, ExamplesPassAgainstThemselves) {
  for (fs::path path : {kRoot / "examples" / "vector_add.py", kRoot / "examples" / "softmax.py",
                        kRoot / "examples" / "matmul.py",
                        kRoot / "tests" / "integrity" / "originals" / "layer_norm.py"}) {
    const auto& t = load(path);
    auto violations = check_static(t, t);
    EXPECT_TRUE(violations.empty()) << path << ":" << describe(violations);
  }
}

TEST(IntegrityStatic, FilesThroughTheBridge) {
  auto vs = check_static_files(bridge(), (kRoot / "examples" / "vector_add.py").string(),
                               (kRoot / "tests" / "integrity" / "cheats" / "timer_patch_add.py").string());
  ASSERT_TRUE(vs.has_value()) << vs.error().to_string();
  EXPECT_TRUE(has(*vs, "integrity-timer-patch")) << describe(*vs);
  auto missing = check_static_files(bridge(), (kRoot / "examples" / "vector_add.py").string(), "/nonexistent/cand.py");
  EXPECT_FALSE(missing.has_value());
}

TEST(IntegrityStatic, SuiteCoversAtLeastEightTricks) {
  std::set<std::string> ids;
  for (const auto& f : fixtures("cheats")) {
    ids.insert(f.reject.begin(), f.reject.end());
    ids.insert(f.reject_runtime.begin(), f.reject_runtime.end());
  }
  EXPECT_GE(fixtures("cheats").size(), 8u);
  EXPECT_GE(ids.size(), 8u);
}

// A candidate made from an example by one textual edit, checked against the example.
std::vector<Violation> check_edit(const std::string& example, const std::string& from, const std::string& to) {
  const fs::path orig = kRoot / "examples" / example;
  return check_edits(orig, orig, {{from, to}});
}

TEST(IntegrityStatic, CommentsAndLayoutInFixedPartsDoNotCount) {
  auto vs = check_edit("vector_add.py", "def reference(x, y):\n    return x + y",
                       "def reference(x, y):\n    # the sum\n    return (x +\n            y)");
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(IntegrityStatic, ReboundReferenceIsAChange) {
  auto vs = check_edit("vector_add.py", "TOLERANCE =", "reference = lambda x, y: x + y\nTOLERANCE =");
  EXPECT_TRUE(has(vs, "integrity-reference-changed")) << describe(vs);
}

// MUTATES says which inputs are outputs and what the timing restores: a candidate keeps it.
TEST(IntegrityStatic, MutatesIsAFixedPart) {
  const fs::path in_place = kRoot / "tests" / "fixtures" / "in_place" / "scale_in_place.py";
  auto dropped = check_edits(in_place, in_place, {{"MUTATES = (\"x\",)\n", ""}});
  EXPECT_TRUE(has(dropped, "integrity-reference-changed")) << describe(dropped);
  auto added = check_edit("vector_add.py", "TOLERANCE =", "MUTATES = (\"x\",)\nTOLERANCE =");
  EXPECT_TRUE(has(added, "integrity-reference-changed")) << describe(added);
  auto kept = check_edits(in_place, in_place, {{"BLOCK=512", "BLOCK=1024"}});
  EXPECT_FALSE(has(kept, "integrity-reference-changed")) << describe(kept);
}

TEST(IntegrityStatic, Bf16WithinAToleranceThatAllowsIt) {
  // matmul.py: fp16 inputs, tf32-default dot, rtol 1e-2 >= u(bf16) = 2^-8.
  auto vs = check_edit("matmul.py", "c = acc.to(tl.float16)", "c = acc.to(tl.bfloat16).to(tl.float16)");
  EXPECT_FALSE(has(vs, "integrity-precision-downgrade")) << describe(vs);
  auto fp8 = check_edit("matmul.py", "c = acc.to(tl.float16)", "c = acc.to(tl.float8e5).to(tl.float16)");
  EXPECT_TRUE(has(fp8, "integrity-precision-downgrade")) << describe(fp8);
}

TEST(IntegrityStatic, Tf32DotInAnFp32TaskIsADowngrade) {
  auto vs = check_edit("vector_add.py", "tl.store(out_ptr + offsets, x + y, mask=mask)",
                       "tl.store(out_ptr + offsets, x + y + tl.sum(tl.dot(x[:, None], y[None, :]), axis=0), mask=mask)");
  EXPECT_TRUE(has(vs, "integrity-precision-downgrade")) << describe(vs);
  auto ieee = check_edit("vector_add.py", "tl.store(out_ptr + offsets, x + y, mask=mask)",
                         "tl.store(out_ptr + offsets, x + y + tl.sum(tl.dot(x[:, None], y[None, :], "
                         "input_precision=\"ieee\"), axis=0), mask=mask)");
  EXPECT_FALSE(has(ieee, "integrity-precision-downgrade")) << describe(ieee);
}

TEST(IntegrityStatic, AliasedImportsAreResolved) {
  auto vs = check_edit("softmax.py", "    out = torch.empty_like(x)\n    softmax_kernel",
                       "    from torch import softmax as sm\n    out = sm(x, -1)\n    softmax_kernel");
  EXPECT_TRUE(has(vs, "integrity-torch-compute")) << describe(vs);
}

// sum-in-kernel's launch sums its partials with the method where the original summed the buffer
// with the function: the same computation. A method the original never used is still refused.
TEST(IntegrityStatic, ATorchFunctionAndItsTensorMethodAreOneComputation) {
  const fs::path summed = kRoot / "tests" / "rules" / "l0" / "l0-host-summed-output" / "fires.py";
  auto method = check_edits(summed, summed, {{"return torch.sum(loss)", "return loss.sum()"}});
  EXPECT_FALSE(has(method, "integrity-torch-compute")) << describe(method);
  auto other = check_edits(summed, summed, {{"return torch.sum(loss)", "return loss.mean() * loss.numel()"}});
  EXPECT_TRUE(has(other, "integrity-torch-compute")) << describe(other);
}

TEST(IntegrityStatic, ChoosingBetweenImportsIsNotAFallback) {
  // Liger-Kernel's layer_norm.py picks libdevice's rsqrt this way.
  auto vs = check_edit("vector_add.py", "import triton.language as tl\n",
                       "import triton.language as tl\n\ntry:\n"
                       "    from triton.language.extra.libdevice import rsqrt\n"
                       "except ModuleNotFoundError:\n"
                       "    from triton.language.extra.cuda.libdevice import rsqrt\n");
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(IntegrityStatic, NoJitKernel) {
  // `def launch(x): return x`, as the bridge's AST JSON (the bridge itself refuses to load it).
  auto module = nlohmann::json::parse(R"({"type": "Module", "children": [
    {"type": "FunctionDef", "field": "body", "index": 0, "span": [1, 1, 2, 13], "fields": {"name": "launch"},
     "children": [
       {"type": "arguments", "field": "args", "children": [
         {"type": "arg", "field": "args", "index": 0, "span": [1, 12, 1, 13], "fields": {"arg": "x"}}]},
       {"type": "Return", "field": "body", "index": 0, "span": [2, 5, 2, 13], "children": [
         {"type": "Name", "field": "value", "span": [2, 12, 2, 13], "fields": {"id": "x", "ctx": "Load"}}]}]}]})");
  auto cand = task_source_from_ast_reply({{"path", "bare.py"}, {"source", "def launch(x):\n    return x\n"},
                                          {"module", module}});
  auto vs = check_static(load(kRoot / "examples" / "vector_add.py"), cand);
  EXPECT_TRUE(has(vs, "integrity-no-jit-kernel")) << describe(vs);
  EXPECT_TRUE(has(vs, "integrity-signature-changed")) << describe(vs);  // launch(x) vs launch(x, y)
  EXPECT_TRUE(has(vs, "integrity-reference-changed")) << describe(vs);  // reference & co. dropped
}

TEST(IntegrityCatalogue, SortedUniqueDocumented) {
  std::ifstream in(kRoot / "docs" / "integrity.md");
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string_view previous;
  for (const auto& c : checks()) {
    EXPECT_LT(previous, c.id) << "catalogue not sorted at " << c.id;
    previous = c.id;
    EXPECT_TRUE(c.id.starts_with("integrity-")) << c.id;
    EXPECT_NE(doc.find("`" + std::string(c.id) + "`"), std::string::npos) << c.id << " missing from docs/integrity.md";
  }
}

TEST(IntegrityCatalogue, RuntimeViolationsFromARunReply) {
  auto reply = nlohmann::json::parse(R"({"integrity": {"violations": [
      {"id": "integrity-output-cache", "line": 0, "message": "stale output"}]}})");
  auto vs = runtime_violations(reply);
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].id, "integrity-output-cache");
  EXPECT_TRUE(runtime_violations(nlohmann::json::object()).empty());
  nlohmann::json back = vs[0];
  EXPECT_EQ(back["message"], "stale output");
  auto failed = runtime_violations(nlohmann::json::parse(
      R"({"integrity": {"passed": false, "violations": [], "error": "the integrity checks could not run: X"}})"));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].id, "integrity-unverified");
}

}  // namespace
}  // namespace tdx::integrity
