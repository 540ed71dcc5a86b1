"""l0-non-power-of-two-block stays silent: a 3000-column row processed in three 1024-lane chunks."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, stride, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask)
        tl.store(out_ptr + row * stride + cols, x * scale, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), 0.5, BLOCK=1024)
    return out


def reference(x):
    return x * 0.5


def make_inputs(device):
    return (torch.randn(256, 3000, device=device),)
