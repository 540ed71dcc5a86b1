"""grow-tile applies through a product grid: a 2-D copy in 16x16 tiles over a 512x512 matrix,
launched on a 1-D grid of triton.cdiv(M, 16) * triton.cdiv(N, 16) programs that the kernel splits
with pid // num_pid_n (l0-tiny-block proposes a 32x32 tile from the access). Each constexpr edits
the factor counting its blocks (M for BLOCK_M, N for BLOCK_N): triton.cdiv(M, 32) *
triton.cdiv(N, 32). The accesses are masked, so a count that is not exact only idles lanes."""
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * stride + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def launch(x):
    M, N = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    copy_kernel[grid](x, out, M, N, x.stride(0), BLOCK_M=32, BLOCK_N=32)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(512, 512, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
