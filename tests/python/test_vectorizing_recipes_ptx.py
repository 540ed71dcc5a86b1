"""What sm_90 code the vectorizing recipes' fixtures compile to (Triton 3.6.0, no GPU needed):
before the rewrite every global access is one 32-bit element, after it the accesses the
rewrite targets are 128-bit (ld/st.global.v4.b32). unmasked-full-blocks keeps 32-bit accesses
for the tail branch only; flatten-contiguous-rows compiles its flat launch (FLAT_ROWS=True).
constexpr-divisor's permute is checked for its division instructions instead.
Each compile runs in a fresh interpreter: importing Triton kernels into the pytest process
(without TRITON_INTERPRET) would break the interpreter-based tests that run after these."""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

COMPILE = r"""
import importlib.util, json, re, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
path, name, signature, constexprs, aligned = sys.argv[1], sys.argv[2], *map(json.loads, sys.argv[3:6])
spec = importlib.util.spec_from_file_location("fixture", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
attrs = {(i,): [["tt.divisibility", 16]] for i in aligned}
compiled = triton.compile(ASTSource(getattr(module, name), signature, constexprs, attrs=attrs),
                          target=GPUTarget("cuda", 90, 32))
ptx = compiled.asm["ptx"]
print(json.dumps({"accesses": sorted(set(re.findall(r"\b((?:ld|st)\.global(?:\.v\d)?\.b(?:16|32))\b", ptx))),
                  "divisions": len(re.findall(r"\b(?:div|rem)\.[su]32\b", ptx))}))
"""


def compiled_summary(path, name, signature, constexprs, aligned_args):
    """The global load/store forms in the PTX, and how many 32-bit div/rem instructions it has."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", COMPILE, str(ROOT / path), name, json.dumps(signature),
                        json.dumps(constexprs), json.dumps(aligned_args)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def global_accesses(path, name, signature, constexprs, aligned_args):
    return set(compiled_summary(path, name, signature, constexprs, aligned_args)["accesses"])


def test_unmasked_full_blocks_vectorizes_the_full_blocks():
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32",
                 "BLOCK_SIZE": "constexpr"}
    before = global_accesses("tests/recipes/unmasked-full-blocks/applies.py", "add_kernel", signature,
                             {"BLOCK_SIZE": 1024}, [0, 1, 2])
    after = global_accesses("tests/recipes/unmasked-full-blocks/applies.expected.py", "add_kernel", signature,
                            {"BLOCK_SIZE": 1024}, [0, 1, 2])
    assert before == {"ld.global.b32", "st.global.b32"}
    assert after == {"ld.global.b32", "st.global.b32", "ld.global.v4.b32", "st.global.v4.b32"}


def test_flatten_contiguous_rows_vectorizes_the_flat_launch():
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "stride_xm": "i32", "stride_xn": "constexpr",
                 "stride_om": "i32", "stride_on": "constexpr", "scale": "fp32", "BLOCK_SIZE": "constexpr"}
    constexprs = {"stride_xn": 1, "stride_on": 1, "BLOCK_SIZE": 1024}
    before = global_accesses("tests/recipes/flatten-contiguous-rows/applies.py", "scale_shift_kernel", signature,
                             constexprs, [0, 1])
    # Flat, the bound is rows x 1023 = 523,776 for 512 rows: a multiple of 16, specialized by the JIT.
    after = global_accesses("tests/recipes/flatten-contiguous-rows/applies.expected.py", "scale_shift_kernel",
                            {**signature, "FLAT_ROWS": "constexpr"}, {**constexprs, "FLAT_ROWS": True}, [0, 1, 2])
    assert before == {"ld.global.b32", "st.global.b32"}
    assert after == {"ld.global.v4.b32", "st.global.v4.b32"}


def test_constexpr_divisor_turns_the_divisions_into_shifts():
    signature = {"x_ptr": "*fp16", "out_ptr": "*fp16", "n_elements": "i32", "S": "i32", "H": "i32", "D": "i32",
                 "stride_xb": "i32", "stride_xs": "i32", "stride_xh": "i32", "stride_xd": "constexpr",
                 "BLOCK": "constexpr"}
    constexprs = {"stride_xd": 1, "BLOCK": 1024}
    # make_inputs: [2, 64, 8, 32]; the JIT specializes n, S, D and the strides as multiples of 16 (not H = 8).
    before = compiled_summary("tests/recipes/constexpr-divisor/applies.py", "permute_kernel", signature, constexprs,
                              [0, 1, 2, 3, 5, 6, 7, 8])
    after = compiled_summary("tests/recipes/constexpr-divisor/applies.expected.py", "permute_kernel",
                             {**signature, "S": "constexpr", "H": "constexpr", "D": "constexpr"},
                             {**constexprs, "S": 64, "H": 8, "D": 32}, [0, 1, 2, 6, 7, 8])
    assert before["divisions"] > 0
    assert after["divisions"] == 0
    # D = 32 is a multiple of 16, which AxisInfo already uses for `offs % D`: the load was
    # vectorized before, and stays so.
    assert "ld.global.v4.b32" in before["accesses"] and "ld.global.v4.b32" in after["accesses"]


def test_divisibility_by_construction_vectorizes_rows_of_1000_fp16():
    signature = {"out_ptr": "*fp16", "in_ptr": "*fp16", "in_row_stride": "i32", "out_row_stride": "i32",
                 "n_cols": "i32", "BLOCK": "constexpr"}
    flags = {"IN_ROW_STRIDE_MULTIPLE_OF_8": True, "N_COLS_MULTIPLE_OF_8": True, "OUT_ROW_STRIDE_MULTIPLE_OF_8": True}
    # 1000 is not a multiple of 16: only the pointers are specialized.
    before = global_accesses("tests/recipes/divisibility-by-construction/applies.py", "log_softmax_kernel",
                             signature, {"BLOCK": 1024}, [0, 1])
    after = global_accesses("tests/recipes/divisibility-by-construction/applies.expected.py", "log_softmax_kernel",
                            {**signature, **{f: "constexpr" for f in flags}}, {"BLOCK": 1024, **flags}, [0, 1])
    assert before == {"ld.global.b16", "st.global.b16"}
    assert after == {"ld.global.v4.b32", "st.global.v4.b32"}
