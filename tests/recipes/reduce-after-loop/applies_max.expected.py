"""reduce-after-loop applies: the maximum of each row of a (8192, 2048) fp32 matrix, 32 rows per
program over (32, 128) tiles, `m = tl.maximum(m, tl.max(x, axis=1))` in each of the 16
iterations; masked lanes load -inf, the identity of max. The rewrite keeps a [BLOCK_M, BLOCK_N]
running maximum and reduces it along axis 1 once after the loop."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_rows, n_cols, row_stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    m = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    m_blk = tl.full([BLOCK_M, BLOCK_N], -float("inf"), dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * row_stride + cols[None, :], mask=mask, other=-float("inf"))
        m_blk = tl.maximum(m_blk, x)
    m = tl.maximum(m, tl.max(m_blk, axis=1))
    tl.store(out_ptr + rows, m, mask=rows < n_rows)


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_max_kernel[(triton.cdiv(n_rows, 32),)](x, out, n_rows, n_cols, x.stride(0), BLOCK_M=32, BLOCK_N=128)
    return out


def reference(x):
    return x.max(dim=1).values


def make_inputs(device):
    return (torch.randn(8192, 2048, device=device, dtype=torch.float32),)


def make_small_inputs(device):
    return (torch.randn(50, 300, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 0, "atol": 0}
