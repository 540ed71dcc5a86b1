"""Row-block scaling with a 2-D mask in a loop on a shape that divides the tiles: the row
compares are loop-invariant and hoisted, each 16-byte access needs well under one predicate
instruction per iteration, so the mask is cheap and not reported (calibration case)."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, s_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    scale = tl.load(s_ptr + rows, mask=rows < M, other=0.0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + rows[:, None] * stride + cols[None, :], x * scale[:, None], mask=mask)


def launch(x, s):
    M, N = x.shape
    out = torch.empty_like(x)
    scale_rows_kernel[(triton.cdiv(M, 32),)](x, s, out, M, N, x.stride(0), BLOCK_M=32, BLOCK_N=128)
    return out


def reference(x, s):
    return x * s[:, None]


def make_inputs(device):
    return (torch.randn(512, 1024, device=device, dtype=torch.float32), torch.randn(512, device=device, dtype=torch.float32))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
