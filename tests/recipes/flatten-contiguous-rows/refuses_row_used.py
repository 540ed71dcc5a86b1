"""flatten-contiguous-rows refuses: the row index is not only an address term (it scales each
row by a per-row factor), so a flat launch would give every element row 0's factor."""
# DECLINES: an access without a pointer and a mask
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, out_ptr, n_cols, stride_xm, stride_om, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    col_block = tl.program_id(axis=1)
    cols = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask)
    s = tl.load(s_ptr + row)
    tl.store(out_ptr + row * stride_om + cols, x * s, mask=mask)


def launch(x, s):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    grid = (n_rows, triton.cdiv(n_cols, 1024))
    row_scale_kernel[grid](x, s, out, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=1024)
    return out


def reference(x, s):
    return x * s[:, None]


def make_inputs(device):
    return (torch.randn(512, 1023, device=device), torch.randn(512, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
