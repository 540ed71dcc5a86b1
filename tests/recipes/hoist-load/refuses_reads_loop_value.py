"""hoist-load refuses: the per-chunk scale is indexed by the chunk number, so the load is not
loop-invariant and must stay in the loop."""
# DECLINES: the load reads k, which the loop assigns
import torch
import triton
import triton.language as tl


@triton.jit
def chunk_products_kernel(a_ptr, b_ptr, s_ptr, p_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
        scale = tl.load(s_ptr + (k // BLOCK_K) * N + offs_n)
        part = tl.dot(a, b) * scale[None, :]
        tl.store(p_ptr + (k // BLOCK_K) * M * N + offs_m[:, None] * N + offs_n[None, :], part)


def launch(a, b, s):
    M, K = a.shape
    _, N = b.shape
    parts = torch.empty((K // 64, M, N), device=a.device, dtype=torch.float32)
    chunk_products_kernel[(M // 64, N // 64)](a, b, s, parts, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)
    return parts


def reference(a, b, s):
    M, K = a.shape
    chunks = [a[:, k:k + 64].float() @ b[k:k + 64, :].float() for k in range(0, K, 64)]
    return torch.stack(chunks) * s[:, None, :]


def make_inputs(device):
    a = torch.randn(256, 256, device=device, dtype=torch.float16)
    b = torch.randn(256, 256, device=device, dtype=torch.float16)
    return (a, b, torch.rand(4, 256, device=device))


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
