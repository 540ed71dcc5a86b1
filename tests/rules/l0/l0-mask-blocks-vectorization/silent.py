"""l0-mask-blocks-vectorization stays silent: a specialized bound, and an odd bound on the strided dimension."""
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def launch(x):
    M, N = x.shape
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 128))](x, out, M, N, x.stride(0), BLOCK_M=32, BLOCK_N=128)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(1001, 1040, device=device),)
