"""What sm_90 code the vectorizing recipes' fixtures compile to (Triton 3.6.0, no GPU needed):
before the rewrite every global access is one 32-bit element, after it the accesses the
rewrite targets are 128-bit (ld/st.global.v4.b32). unmasked-full-blocks keeps 32-bit accesses
for the tail branch only; flatten-contiguous-rows compiles its flat launch (FLAT_ROWS=True)."""
import importlib.util
import pathlib
import re

import pytest

triton = pytest.importorskip("triton")
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
ALIGNED = [["tt.divisibility", 16]]


def kernel(path, name):
    spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def global_accesses(fn, signature, constexprs, aligned_args):
    attrs = {(i,): ALIGNED for i in aligned_args}
    compiled = triton.compile(ASTSource(fn, signature, constexprs, attrs=attrs), target=GPUTarget("cuda", 90, 32))
    return set(re.findall(r"\b((?:ld|st)\.global(?:\.v\d)?\.b32)\b", compiled.asm["ptx"]))


def test_unmasked_full_blocks_vectorizes_the_full_blocks():
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32",
                 "BLOCK_SIZE": "constexpr"}
    before = global_accesses(kernel("tests/recipes/unmasked-full-blocks/applies.py", "add_kernel"), signature,
                             {"BLOCK_SIZE": 1024}, [0, 1, 2])
    after = global_accesses(kernel("tests/recipes/unmasked-full-blocks/applies.expected.py", "add_kernel"),
                            signature, {"BLOCK_SIZE": 1024}, [0, 1, 2])
    assert before == {"ld.global.b32", "st.global.b32"}
    assert after == {"ld.global.b32", "st.global.b32", "ld.global.v4.b32", "st.global.v4.b32"}


def test_flatten_contiguous_rows_vectorizes_the_flat_launch():
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "stride_xm": "i32", "stride_xn": "constexpr",
                 "stride_om": "i32", "stride_on": "constexpr", "scale": "fp32", "BLOCK_SIZE": "constexpr"}
    constexprs = {"stride_xn": 1, "stride_on": 1, "BLOCK_SIZE": 1024}
    before = global_accesses(kernel("tests/recipes/flatten-contiguous-rows/applies.py", "scale_shift_kernel"),
                             signature, constexprs, [0, 1])
    # Flat, the bound is rows x 1023 = 523,776 for 512 rows: a multiple of 16, specialized by the JIT.
    after = global_accesses(kernel("tests/recipes/flatten-contiguous-rows/applies.expected.py", "scale_shift_kernel"),
                            {**signature, "FLAT_ROWS": "constexpr"}, {**constexprs, "FLAT_ROWS": True}, [0, 1, 2])
    assert before == {"ld.global.b32", "st.global.b32"}
    assert after == {"ld.global.v4.b32", "st.global.v4.b32"}
