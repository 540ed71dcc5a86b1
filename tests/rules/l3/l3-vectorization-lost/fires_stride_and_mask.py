"""l3-vectorization-lost fires: a row-by-row scale over a [256, 2047] fp32 tensor. Both the row
stride 2047 (row starts only 4-byte aligned) and the column bound 2047 (`cols < n_cols` has
constancy 1) keep every access 32-bit: assuming the stride divisible alone changes nothing, so
the rule's what-if assumes both, which widens the accesses and confirms the joint cause."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, n_cols, stride_xm, stride_om, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask)  # CHECK: l3-vectorization-lost
    tl.store(out_ptr + row * stride_om + cols, x * scale, mask=mask)  # CHECK: l3-vectorization-lost


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    scale_rows_kernel[(rows, triton.cdiv(cols, 1024))](x, out, cols, x.stride(0), out.stride(0), 2.0, BLOCK=1024)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(256, 2047, device=device),)
