"""l0-tiny-block stays silent: a 64-lane block that already covers each 50-element row."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, x * 2.0, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(4096, 50, device=device),)
