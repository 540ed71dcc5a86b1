"""Decode-time linear layer Y = X @ W^T in fp16 (fp32 accumulation): X [16, 8192] (16 tokens),
W [28672, 8192] in nn.Linear layout (a Llama-70B-class MLP up/gate projection); 470 MB of
weights streamed once, so the kernel is memory-bound (GEMV-like).

Provenance: the Triton tutorial "Matrix Multiplication" (03-matrix-multiplication.py) in its
first, ungrouped form, with W^T passed through strides (stride_bk = 1, stride_bn = K) the
way `x @ w.t()` is usually handed to a Triton GEMM, and the tile shrunk to the 16 rows
there are: one program per 16x64 output tile, K loop of BLOCK_K = 64.

Weaknesses: a memory-bound shape run as a compute-shaped GEMM: 448 programs of 16x64, each
streaming a 64-column strip of W through the whole K = 8192 loop with the default 3
pipeline stages and 4 warps, so few bytes are in flight per SM (about 3.4 programs per SM,
no split-K to raise the parallelism, no larger BLOCK_N or BLOCK_K to deepen each load); the
16-row tile runs on mma.sync rather than wgmma (harmless for a memory-bound kernel, but the
shared-memory staging is a GEMM's, not a GEMV's); no autotuning; masks on every load and
the store though the shape divides the tiles.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, y_ptr, M, N, K,
                  stride_xm, stride_xk, stride_wk, stride_wn, stride_ym, stride_yn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(x, w)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    y_ptrs = y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn
    tl.store(y_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(x, w):
    M, K = x.shape
    N = w.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    linear_kernel[grid](x, w, y, M, N, K,
                        x.stride(0), x.stride(1), w.stride(1), w.stride(0), y.stride(0), y.stride(1),
                        BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)
    return y


def reference(x, w):
    return (x.float() @ w.float().t()).to(torch.float16)


# What a user would call in PyTorch (the reference upcasts for accuracy).
def torch_baseline(x, w):
    return x @ w.t()


def make_inputs(device):
    x = torch.randn(16, 8192, device=device, dtype=torch.float16)
    w = torch.randn(28672, 8192, device=device, dtype=torch.float16)
    return (x, w)


def make_small_inputs(device):
    x = torch.randn(7, 67, device=device, dtype=torch.float16)
    w = torch.randn(45, 67, device=device, dtype=torch.float16)
    return (x, w)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd token count, N and K (prime) and one token of 1 x 1
    return [
        make_small_inputs(device),  # 7 tokens, K = 67, N = 45: one 16x64 tile, K one full step and 3 columns
        # 17 tokens (a second 16-row tile with one row), K = 131 (two full steps and 3), N = 97 (33 of the second tile)
        (torch.randn(17, 131, device=device, dtype=torch.float16),
         torch.randn(97, 131, device=device, dtype=torch.float16)),
        # M = N = K = 1: one token through a 1 x 1 weight, one program, one element of each tile
        (torch.randn(1, 1, device=device, dtype=torch.float16),
         torch.randn(1, 1, device=device, dtype=torch.float16)),
    ]


def flops(x, w):
    return 2 * x.shape[0] * x.shape[1] * w.shape[0]


def bytes_moved(x, w):
    return (x.numel() + w.numel() + x.shape[0] * w.shape[0]) * x.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
