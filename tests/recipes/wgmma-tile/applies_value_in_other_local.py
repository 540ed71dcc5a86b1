"""wgmma-tile applies when another launch-local variable holds the tile's old value: BLOCK_M = 16
(M per CTA not a multiple of 64, so the dot runs on mma.sync) and BLOCK_K = 16, which the launch
only passes as BLOCK_K=BLOCK_K (vLLM's MLA decode launch has `BLOCK = 16` for BLOCK_N beside
BLOCK_H = 16, and an AMD-only `{"matrix_instr_nonkdim": 16}` passed as `**extra_kargs`). The 16 of
BLOCK_K and the 16 in the dict feed other parameters, not BLOCK_M, so they are left alone and not
taken for uses tied to BLOCK_M; the recipe sets BLOCK_M = 64 and the grid follows."""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak,
                    mask=offs_m[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=offs_n[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc=acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M = 16
    BLOCK_N = 128
    BLOCK_K = 16
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    extra_kargs = {}
    if torch.version.hip:
        extra_kargs = {"matrix_instr_nonkdim": 16}
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, **extra_kargs)
    return c


def reference(a, b):
    return (a.float() @ b.float()).to(torch.float16)


def make_inputs(device):
    a = torch.randn(1024, 512, device=device, dtype=torch.float16)
    b = torch.randn(512, 512, device=device, dtype=torch.float16)
    return (a, b)


def make_small_inputs(device):
    a = torch.randn(80, 128, device=device, dtype=torch.float16)
    b = torch.randn(128, 136, device=device, dtype=torch.float16)
    return (a, b)


def flops(a, b):
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
