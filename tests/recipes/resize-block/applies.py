"""resize-block applies: rows of 100 columns processed with a fixed 1024-lane block, 90% of the
lanes masked (l0-masked-lanes); one block covers a row and the grid counts rows, so the recipe
only sizes BLOCK from the extent: 128 lanes."""
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
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024)
    return out


def reference(x):
    return x * 3.0


def make_inputs(device):
    return (torch.randn(1024, 100, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
