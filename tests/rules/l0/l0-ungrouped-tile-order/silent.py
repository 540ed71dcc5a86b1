"""l0-ungrouped-tile-order stays silent: the tutorial's grouped ordering (GROUP_SIZE_M rows of tiles
per group), a row-major mapping on a grid of a single wave, and a row-major elementwise kernel
without a dot."""
import torch
import triton
import triton.language as tl


@triton.jit
def grouped_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


@triton.jit
def small_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


@triton.jit
def add_tiles_kernel(x_ptr, y_ptr, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = offs_m[:, None] * N + offs_n[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grouped_matmul_kernel[(triton.cdiv(M, 64) * triton.cdiv(N, 64),)](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64,
                                                                      BLOCK_K=32, GROUP_SIZE_M=8)
    small = torch.empty((256, 256), device=a.device, dtype=torch.float16)
    small_matmul_kernel[(16,)](a[:256], b[:, :256].contiguous(), small, 256, 256, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    d = torch.empty((M, N), device=a.device, dtype=torch.float32)
    add_tiles_kernel[(triton.cdiv(M, 64) * triton.cdiv(N, 64),)](c.float(), d, N, BLOCK_M=64, BLOCK_N=64)
    return c, small, d


def reference(a, b):
    c = (a.float() @ b.float()).to(torch.float16)
    return c, c[:256, :256], c.float() + 1.0


def make_inputs(device):
    a = torch.randn(2048, 256, device=device, dtype=torch.float16)
    b = torch.randn(256, 2048, device=device, dtype=torch.float16)
    return (a, b)


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
