"""k-major-operand refuses: the same tf32 matmul, but the kernel assumes B is row-major (its row
stride is N, its column stride 1) instead of taking b's strides, so a K-major copy of b would be
read as if it were row-major."""
# DECLINES: the launch passes 0 stride(s) of `b`: the kernel assumes a layout
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    matmul_kernel[(M // 64, N // 64)](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                      c.stride(0), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, b):
    return (a.double() @ b.double()).float()


def make_inputs(device):
    return (torch.randn(512, 512, device=device), torch.randn(512, 512, device=device))


def make_small_inputs(device):
    return (torch.randn(64, 96, device=device), torch.randn(96, 128, device=device))


TOLERANCE = {"rtol": 1e-2, "atol": 5e-2}  # tf32 (10-bit mantissa) over K = 512
