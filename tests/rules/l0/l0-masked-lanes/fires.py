"""l0-masked-lanes fires: a fixed 1024-lane block over rows of 100 columns (90% masked)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)  # CHECK: l0-masked-lanes
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, x * 3.0, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024)
    return out


def reference(x):
    return x * 3.0


def make_inputs(device):
    return (torch.randn(8192, 100, device=device),)
