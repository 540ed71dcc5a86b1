"""l0-reduction-in-loop fires: 32 rows per program, a (32, 128) tile per iteration, the row
sums and row minima reduced along the tile's column axis (axis=1) in each of the 16 iterations;
`acc = acc + ...` and tl.minimum forms, in a tl.range loop."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_min_kernel(x_ptr, sum_ptr, min_ptr, n_rows, n_cols, row_stride,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    lo = tl.full([BLOCK_M], float("inf"), dtype=tl.float32)
    for off in tl.range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * row_stride + cols[None, :], mask=mask, other=0.0)
        acc = acc + tl.sum(x, axis=1)  # CHECK: l0-reduction-in-loop
        lo = tl.minimum(lo, tl.min(tl.where(mask, x, float("inf")), axis=1))  # CHECK: l0-reduction-in-loop
    tl.store(sum_ptr + rows, acc, mask=rows < n_rows)
    tl.store(min_ptr + rows, lo, mask=rows < n_rows)


def launch(x):
    n_rows, n_cols = x.shape
    sums = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    mins = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_sum_min_kernel[(triton.cdiv(n_rows, 32),)](x, sums, mins, n_rows, n_cols, x.stride(0), BLOCK_M=32, BLOCK_N=128)
    return sums, mins


def reference(x):
    return x.sum(dim=1), x.min(dim=1).values


def make_inputs(device):
    return (torch.randn(8192, 2048, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
