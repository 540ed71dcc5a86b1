"""l0-reduction-in-loop fires: per-row sum of squares and max over 512-column chunks of a
(4096, 3000) fp32 matrix, both reduced across the block in every one of the 6 iterations."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, sumsq_ptr, max_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    sumsq = 0.0
    row_max = -float("inf")
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0)
        sumsq += tl.sum(x * x, axis=0)  # CHECK: l0-reduction-in-loop
        row_max = tl.maximum(row_max, tl.max(tl.where(cols < n_cols, x, -float("inf")), axis=0))  # CHECK: l0-reduction-in-loop
    tl.store(sumsq_ptr + row, sumsq)
    tl.store(max_ptr + row, row_max)


def launch(x):
    rows, cols = x.shape
    sumsq = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_max = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_stats_kernel[(rows,)](x, sumsq, row_max, cols, x.stride(0), BLOCK=512)
    return sumsq, row_max


def reference(x):
    return (x * x).sum(dim=1), x.max(dim=1).values


def make_inputs(device):
    return (torch.randn(4096, 3000, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
