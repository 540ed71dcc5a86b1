"""resize-block refuses: the launch computes the block of a single block per row as max(1024,
next_power_of_2(cols)); capped at a smaller block, that policy would no longer cover longer rows
than the captured ones, so the recipe declines."""
# DECLINES: for a single block, which a smaller block capped at 128 may no longer cover
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, x * 3.0, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=max(1024, triton.next_power_of_2(cols)))
    return out


def reference(x):
    return x * 3.0


def make_inputs(device):
    return (torch.randn(1024, 100, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
