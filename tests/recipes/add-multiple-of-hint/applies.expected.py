"""add-multiple-of-hint applies: a row copy whose row stride (1024) is listed in
do_not_specialize, so the compiler assumes divisibility 1 and the accesses stay scalar
(l0-missing-alignment-hints). A tl.multiple_of hint on a kernel argument is dropped by Triton
3.6, so the recipe lets the JIT specialize the stride instead: it leaves do_not_specialize."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_copy_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, x, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_copy_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(256, 1024, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
