"""Linear layer with fused bias and GELU, Y = gelu(X @ W + bias) in fp16 (fp32 accumulation,
exact erf GELU as torch.nn.functional.gelu's default), M = N = K = 4096, row-major X [M, K]
and W [K, N], bias [N].

Provenance: the Triton tutorial "Matrix Multiplication" (03-matrix-multiplication.py) in its
first, ungrouped form (64x64 tiles, BLOCK_K = 32), with the epilogue fusion the tutorial
suggests (it fuses leaky_relu on the fp32 accumulator): the bias row is loaded once per
tile and added to the accumulator, then GELU written from its formula
0.5 * x * (1 + erf(x / sqrt(2))) before the fp16 store.

Weaknesses: the main loop is the ungrouped tutorial's: fixed 64x64x32 tiles with the
default 4 warps and 3 stages, no autotuning, row-major program order with no grouping for L2
reuse of W, masks on every load and the store though 4096 divides the tiles, no persistent
scheduling, TMA or warp specialization. The epilogue itself is cheap (one erf per output)
and already fused, so the gap is in the GEMM.
"""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_bias_gelu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)
    x = acc + bias[None, :]
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, y.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(x, w, bias):
    M, K = x.shape
    N = w.shape[1]
    y = torch.empty((M, N), device=x.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    matmul_bias_gelu_kernel[grid](x, w, bias, y, M, N, K,
                                  x.stride(0), x.stride(1), w.stride(0), w.stride(1), y.stride(0), y.stride(1),
                                  BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return y


def reference(x, w, bias):
    return torch.nn.functional.gelu(x.float() @ w.float() + bias.float()).to(torch.float16)


# What a user would call in PyTorch (the reference upcasts for accuracy).
def torch_baseline(x, w, bias):
    return torch.nn.functional.gelu(torch.addmm(bias, x, w))


def _inputs(M, K, N, device):
    # nn.Linear-like scale (weights ~ 1/sqrt(K)) so the pre-activations are O(1) and the
    # GELU's curved part is exercised, not just its linear and zero tails.
    x = torch.randn(M, K, device=device, dtype=torch.float16)
    w = (torch.randn(K, N, device=device) / math.sqrt(K)).to(torch.float16)
    bias = torch.randn(N, device=device, dtype=torch.float16)
    return (x, w, bias)


def make_inputs(device):
    return _inputs(4096, 4096, 4096, device)


def make_small_inputs(device):
    return _inputs(67, 33, 45, device)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd M, N, K (prime) and a 1 x 1 x 1 product
    return [
        make_small_inputs(device),  # 67 x 33 @ 33 x 45 + bias: a 2 x 1 grid of 64x64 tiles, bias load masked
        # 97 x 61 @ 61 x 131: a 2 x 3 grid, N's third tile (and its bias) 3 columns, K's second step 29 of 32
        _inputs(97, 61, 131, device),
        _inputs(1, 1, 1, device),  # M = N = K = 1: one program, one element of the tile, one bias value
    ]


def flops(x, w, bias):
    return 2 * x.shape[0] * x.shape[1] * w.shape[1]


def bytes_moved(x, w, bias):
    return (x.numel() + w.numel() + bias.numel() + x.shape[0] * w.shape[1]) * x.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
