"""grow-tile refuses: the same 16x16 copy on a product grid triton.cdiv(M, 16) * triton.cdiv(N, 16),
but its accesses are unmasked. Inside a product the recipe cannot tell whether the new block
counts are exact (each factor's share of the captured grid is unknown), so a 32x32 tile could
read and write past the matrix; the recipe declines."""
# DECLINES: the kernel has unmasked accesses: the last block
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
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x)


def launch(x):
    M, N = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(M, 16) * triton.cdiv(N, 16),)
    copy_kernel[grid](x, out, M, N, x.stride(0), BLOCK_M=16, BLOCK_N=16)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(512, 512, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
