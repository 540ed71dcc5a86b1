"""fp16 matmul with BLOCK_M = 64, num_warps = 4: the dot becomes ttng.warp_group_dot (wgmma);
no fallback."""
import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    mm_kernel[(M // 64, N // 64)](a, b, c, K, a.stride(0), b.stride(0), c.stride(0),
                                  BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, b):
    return (a.float() @ b.float()).to(torch.float16)


def make_inputs(device):
    a = torch.randn(256, 256, device=device, dtype=torch.float16)
    b = torch.randn(256, 256, device=device, dtype=torch.float16)
    return (a, b)


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
