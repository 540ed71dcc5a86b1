"""grow-tile applies through a product grid whose factors are not named like the tile's
dimensions: a copy of a [B, R, C] tensor in 16x16 tiles of its [B * R, C] rows, launched on
triton.cdiv(B * R, 16) * triton.cdiv(C, 16) programs (the shape of an implicit-GEMM convolution's
grid). Neither extent is named M or N; the kernel says which is which: it splits the program id
with num_pid_n = tl.cdiv(C, BLOCK_N), and the launch passes C as that parameter, so
triton.cdiv(C, 16) counts blocks of BLOCK_N and the other factor those of BLOCK_M
(l0-tiny-block proposes 32x32). The accesses are masked."""
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, B, R, C, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(C, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    M = B * R
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * C + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < C)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def launch(x):
    B, R, C = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(B * R, 32) * triton.cdiv(C, 32),)
    copy_kernel[grid](x, out, B, R, C, BLOCK_M=32, BLOCK_N=32)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(4, 128, 512, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
