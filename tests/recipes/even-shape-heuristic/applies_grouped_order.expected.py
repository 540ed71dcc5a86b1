"""even-shape-heuristic applies when the block's row comes from a grouped program ordering (the
tutorial matmul's `first_pid_m + (pid % num_pid_in_group) % group_size_m`, with group_size_m a
min()): interval arithmetic cannot bound that row below num_pid_m (12 row blocks in groups of 8),
but evaluated at every program of the launch it stays inside, so the tile's masks are always true
for this even launch and the recipe guards the load and the store with EVEN_M_N."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 GROUP_M: tl.constexpr, EVEN_M_N: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ptrs = offs_m[:, None] * stride_m + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if EVEN_M_N:
        x = tl.load(x_ptr + ptrs)
        tl.store(out_ptr + ptrs, x * 2.0)
    else:
        x = tl.load(x_ptr + ptrs, mask=mask)
        tl.store(out_ptr + ptrs, x * 2.0, mask=mask)


def launch(x):
    M, N = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 64),)
    even_m_n = M % 32 == 0 and N % 64 == 0
    scale_kernel[grid](x, out, M, N, x.stride(0), BLOCK_M=32, BLOCK_N=64, GROUP_M=8, EVEN_M_N=even_m_n)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(384, 256, device=device),)


def make_small_inputs(device):
    return (torch.randn(96, 128, device=device),)
