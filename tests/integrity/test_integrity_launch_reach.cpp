// The static check follows launch() where libraries put the launch (autograd.Function.apply,
// instances and their methods, functools.partial, kernels handed to helpers or imported
// functions, helpers in module-level blocks and nested defs), and checks those method bodies as
// host code. The library-shaped cases are fixtures (honest/, cheats/); these are the edges,
// each a candidate made from a task file by textual edits.
#include <gtest/gtest.h>

#include "integrity_test_support.h"

namespace tdx::integrity {
namespace {

using namespace test_support;

const fs::path kVectorAdd = kRoot / "examples" / "vector_add.py";
const fs::path kCallableClass = kRoot / "tests" / "integrity" / "honest" / "vector_add_callable_class.py";
const fs::path kLayerNorm = kRoot / "tests" / "integrity" / "originals" / "layer_norm.py";
const fs::path kLayerNormAutograd = kRoot / "tests" / "integrity" / "honest" / "layer_norm_autograd_function.py";

const std::string kLaunchLine = "    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)";

TEST(LaunchReach, KernelHandedToAnImportedFunctionCounts) {
  auto vs = check_edits(kVectorAdd, kVectorAdd,
                        {{kLaunchLine, "    launch_kernel(add_kernel, grid, x, y, out, n, BLOCK_SIZE=1024)"},
                         {"import torch\n", "import torch\nfrom tritondx_ext import launch_kernel\n"}});
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(LaunchReach, WrapTritonLaunches) {
  auto vs = check_edits(kVectorAdd, kVectorAdd,
                        {{kLaunchLine,
                          "    torch.library.wrap_triton(add_kernel)[grid](x, y, out, n, BLOCK_SIZE=1024)"}});
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(LaunchReach, AutogradApplyBoundToAModuleLevelName) {
  // The Triton tutorials' `attention = _attention.apply`.
  auto vs = check_edits(kVectorAdd, kVectorAdd,
                        {{"def launch(x, y):\n    out = torch.empty_like(x)\n",
                          "class _Add(torch.autograd.Function):\n"
                          "    @staticmethod\n"
                          "    def forward(ctx, x, y):\n"
                          "        return _add(x, y)\n\n\n"
                          "add = _Add.apply\n\n\n"
                          "def launch(x, y):\n    return add(x, y)\n\n\n"
                          "def _add(x, y):\n    out = torch.empty_like(x)\n"}});
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(LaunchReach, AnImportedCallGivenNoKernelDoesNotCount) {
  auto vs = check_edits(kVectorAdd, kVectorAdd,
                        {{kLaunchLine, "    launch_kernel(grid, x, y, out, n, BLOCK_SIZE=1024)"},
                         {"import torch\n", "import torch\nfrom tritondx_ext import launch_kernel\n"}});
  EXPECT_TRUE(has(vs, "integrity-kernel-not-launched")) << describe(vs);
}

TEST(LaunchReach, RunAndWarmupCount) {
  auto run = check_edits(kVectorAdd, kVectorAdd,
                         {{kLaunchLine, "    add_kernel.run(x, y, out, n, grid=grid, warmup=False, BLOCK_SIZE=1024)"}});
  EXPECT_TRUE(run.empty()) << describe(run);
  auto warmup = check_edits(kVectorAdd, kVectorAdd,
                            {{kLaunchLine, "    add_kernel.warmup(x, y, out, n, grid=grid, BLOCK_SIZE=1024)"}});
  EXPECT_TRUE(warmup.empty()) << describe(warmup);
}

TEST(LaunchReach, HelperDefinedInAModuleLevelBlock) {
  auto vs = check_edits(kVectorAdd, kVectorAdd,
                        {{kLaunchLine, "    _go(x, y, out, n, grid)"},
                         {"def launch(x, y):",
                          "if triton.__version__ >= \"3\":\n"
                          "    def _go(x, y, out, n, grid):\n"
                          "        add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)\n"
                          "else:\n"
                          "    def _go(x, y, out, n, grid):\n"
                          "        add_kernel[grid](x, y, out, n, BLOCK_SIZE=512)\n\n\n"
                          "def launch(x, y):"}});
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(LaunchReach, NestedHelperInLaunch) {
  auto vs = check_edits(kVectorAdd, kVectorAdd,
                        {{kLaunchLine, "    def go(block):\n"
                                       "        add_kernel[grid](x, y, out, n, BLOCK_SIZE=block)\n\n"
                                       "    go(1024)"}});
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(LaunchReach, MethodCalledOnAFreshInstance) {
  auto vs = check_edits(kVectorAdd, kCallableClass,
                        {{"    op = VectorAdd()\n    return op(x, y)", "    return VectorAdd().forward(x, y)"}});
  EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(LaunchReach, UnnamedMethodDoesNotCount) {
  // __call__ runs (an instance is called) but no longer names forward, the only launch.
  auto vs = check_edits(kVectorAdd, kCallableClass, {{"        return self.forward(x, y)", "        return x + y"}});
  EXPECT_TRUE(has(vs, "integrity-kernel-not-launched")) << describe(vs);
}

TEST(LaunchReach, MethodsAreHostCode) {
  auto fallback = check_edits(kVectorAdd, kCallableClass,
                              {{"        return self.forward(x, y)", "        try:\n"
                                                                     "            return self.forward(x, y)\n"
                                                                     "        except RuntimeError:\n"
                                                                     "            return x + y"}});
  EXPECT_TRUE(has(fallback, "integrity-fallback")) << describe(fallback);

  auto stream = check_edits(kVectorAdd, kCallableClass,
                            {{"        n = x.numel()\n",
                              "        n = x.numel()\n        side = torch.cuda.Stream()\n"}});
  EXPECT_TRUE(has(stream, "integrity-side-stream")) << describe(stream);

  auto memo = check_edits(kVectorAdd, kCallableClass,
                          {{"import torch\n", "import functools\nimport torch\n"},
                           {"    def grid(self, n):", "    @functools.lru_cache\n    def grid(self, n):"}});
  EXPECT_TRUE(has(memo, "integrity-output-cache")) << describe(memo);

  auto class_state = check_edits(kVectorAdd, kCallableClass,
                                 {{"        return out\n", "        VectorAdd.last = out\n        return out\n"}});
  EXPECT_TRUE(has(class_state, "integrity-output-cache")) << describe(class_state);

  auto compute = check_edits(kVectorAdd, kCallableClass,
                             {{"        return self.forward(x, y)", "        return torch.add(x, y)"}});
  EXPECT_TRUE(has(compute, "integrity-torch-compute")) << describe(compute);
  EXPECT_TRUE(has(compute, "integrity-kernel-not-launched")) << describe(compute);
}

TEST(LaunchReach, AutogradBackwardIsHostCode) {
  auto vs = check_edits(kLayerNorm, kLayerNormAutograd,
                        {{"        DX, DW, DB = layer_norm_backward(dY, X, W, Mean, RSTD)\n",
                          "        DX, DW, DB = layer_norm_backward(dY, X, W, Mean, RSTD)\n"
                          "        DB = dY.sum(dim=0)\n"}});
  EXPECT_TRUE(has(vs, "integrity-torch-compute")) << describe(vs);
  EXPECT_FALSE(has(vs, "integrity-kernel-not-launched")) << describe(vs);
}

TEST(FixedParts, ReferenceAddedWhereTheOriginalHasNone) {
  // A task without `reference` is verified against its original kernel: a candidate must not
  // bring its own yardstick.
  fs::path no_reference = write_edited(kVectorAdd, {{"def reference(x, y):\n    return x + y\n\n\n", ""}});
  auto added = check_static(load(no_reference), load(kVectorAdd));
  EXPECT_TRUE(has(added, "integrity-reference-changed")) << describe(added);
  auto kept = check_static(load(no_reference), load(no_reference));
  EXPECT_TRUE(kept.empty()) << describe(kept);
  fs::path in_a_block = write_edited(no_reference, {{"def make_inputs(device):", "if True:\n    def reference(x, y):\n"
                                                                                  "        return x + y\n\n\n"
                                                                                  "def make_inputs(device):"}});
  auto hidden = check_static(load(no_reference), load(in_a_block));
  EXPECT_TRUE(has(hidden, "integrity-reference-changed")) << describe(hidden);
}

// A real library's code carries constructs the checks flag in a candidate (Liger's helpers: a
// getattr on a device-type name, an lru_cache'd device query). They are the user's code, not
// something a rewrite introduced: a candidate that keeps them passes, and the same construct the
// rewrite adds or moves (the memoizer now on launch) still fails.
TEST(LaunchReach, ConstructsTheOriginalHasAreNotTheCandidates) {
  const fs::path liger = kRoot / "bench" / "corpus" / "liger" / "swiglu_fwd.py";
  const std::string int64_pid = "    program_id = tl.program_id(0).to(tl.int64)\n\n    # locate start index";
  auto kept = check_edits(liger, liger, {{int64_pid, "    program_id = tl.program_id(0)\n\n    # locate start index"}});
  EXPECT_TRUE(kept.empty()) << describe(kept);

  auto added = check_edits(liger, liger, {{"def launch(a, b):", "@functools.lru_cache(maxsize=None)\ndef launch(a, b):"}});
  EXPECT_TRUE(has(added, "integrity-output-cache")) << describe(added);

  auto moved = check_edits(liger, liger,
                           {{"@functools.lru_cache(maxsize=None)\ndef infer_device_arch", "def infer_device_arch"},
                            {"def launch(a, b):", "@functools.lru_cache(maxsize=None)\ndef launch(a, b):"}});
  EXPECT_TRUE(has(moved, "integrity-output-cache")) << describe(moved);
}

}  // namespace
}  // namespace tdx::integrity
