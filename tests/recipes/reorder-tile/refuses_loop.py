"""reorder-tile refuses: the same transpose, each program looping over column chunks; a second tile
dimension inside a loop is left alone (the recipe retiles straight-line kernels only)."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xr, stride_xc, stride_outr, stride_outc,
                     BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_xr + cols * stride_xc, mask=mask)
        tl.store(out_ptr + cols * stride_outr + row * stride_outc, x, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    grid = (rows,)
    transpose_kernel[grid](x, out, rows, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK=256)
    return out


def reference(x):
    return x.t().contiguous()


def make_inputs(device):
    return (torch.randn(1024, 1024, device=device, dtype=torch.float32),)


def make_small_inputs(device):
    return (torch.randn(45, 300, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
