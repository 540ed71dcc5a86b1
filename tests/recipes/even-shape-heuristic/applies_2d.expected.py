"""even-shape-heuristic applies: a 2-D copy in 32x64 tiles over a 512x512 matrix; the load's mask
(rows < M) & (cols < N) is always true for this launch. The recipe adds EVEN_M_N, passed as
M % 32 == 0 and N % 64 == 0, and loads the tile unmasked when it holds."""
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN_M_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * stride + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if EVEN_M_N:
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x)
    else:
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x, mask=mask)


def launch(x):
    M, N = x.shape
    out = torch.empty_like(x)
    even_m_n = M % 32 == 0 and N % 64 == 0
    copy_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 64))](x, out, M, N, x.stride(0), BLOCK_M=32, BLOCK_N=64, EVEN_M_N=even_m_n)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(512, 512, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
