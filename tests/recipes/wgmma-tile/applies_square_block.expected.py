"""wgmma-tile applies to a square tile: one constexpr BLOCK = 32 sizes M, N and K of the dot
(the accumulator's tl.zeros((BLOCK, BLOCK)), offs_m, offs_n, offs_k and the K loop's step), the
launch passes num_warps=2, and the 1-D grid multiplies two block counts,
triton.cdiv(M, 32) * triton.cdiv(N, 32). BLOCK becomes 64 (so does K, which the loop steps by
BLOCK; K = 256 is a whole number of 64-blocks and the K loads are masked with other=0), both
factors of the grid follow, and num_warps becomes 4."""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
    offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
    offs_k = tl.arange(0, BLOCK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK * stride_ak
        b_ptrs += BLOCK * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK=64, num_warps=4)
    return c


def reference(a, b):
    return (a.float() @ b.float()).to(torch.float16)


def make_inputs(device):
    a = torch.randn(512, 256, device=device, dtype=torch.float16)
    b = torch.randn(256, 384, device=device, dtype=torch.float16)
    return (a, b)


def make_small_inputs(device):
    a = torch.randn(96, 64, device=device, dtype=torch.float16)
    b = torch.randn(64, 80, device=device, dtype=torch.float16)
    return (a, b)


def flops(a, b):
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
