"""Batched fp16 matrix product C[b] = A[b] @ B[b] (fp32 accumulation), 32 batches of
1024 x 1024 x 1024, contiguous [B, M, K] and [B, K, N] tensors (torch.bmm semantics).

Provenance: the Triton tutorial "Matrix Multiplication" (03-matrix-multiplication.py) in its
first, ungrouped form, extended to a batch the usual way: a 2-D grid (tiles, batch), each
program offsets its pointers by program_id(1) times the batch stride and computes one 64x64
output tile with a K loop of BLOCK_K = 32.

Weaknesses: fixed 64x64x32 tiles with the default 4 warps and 3 stages (small MMA work per
byte for an H200; 8192 programs of short 32-step K loops); no autotuning; tiles within a
batch run in row-major order with no grouping (cheap here: one batch's A and B are 4 MB and
stay in L2); masks on every load and the store though 1024 divides the tiles; no
persistent scheduling, TMA or warp specialization.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_ab, stride_am, stride_ak,
               stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(a, b):
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64), B)
    bmm_kernel[grid](a, b, c, M, N, K,
                     a.stride(0), a.stride(1), a.stride(2),
                     b.stride(0), b.stride(1), b.stride(2),
                     c.stride(0), c.stride(1), c.stride(2),
                     BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, b):
    return torch.bmm(a.float(), b.float()).to(torch.float16)


# What a user would call in PyTorch (the reference upcasts for accuracy).
def torch_baseline(a, b):
    return torch.bmm(a, b)


def make_inputs(device):
    a = torch.randn(32, 1024, 1024, device=device, dtype=torch.float16)
    b = torch.randn(32, 1024, 1024, device=device, dtype=torch.float16)
    return (a, b)


def make_small_inputs(device):
    a = torch.randn(3, 67, 33, device=device, dtype=torch.float16)
    b = torch.randn(3, 33, 45, device=device, dtype=torch.float16)
    return (a, b)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd M, N, K (prime) per batch and a 1 x 1 x 1 batch of 1
    return [
        make_small_inputs(device),  # 3 batches of 67 x 33 @ 33 x 45: a 2 x 1 tile grid per batch
        # 2 batches of 61 x 97 @ 97 x 37: one 64x64 tile per batch (3 rows, 27 columns masked), K in
        # three full steps and one of 1: the batch stride is not a multiple of any tile
        (torch.randn(2, 61, 97, device=device, dtype=torch.float16),
         torch.randn(2, 97, 37, device=device, dtype=torch.float16)),
        # a batch of one 1 x 1 x 1 product: one program, everything but one element of each tile masked
        (torch.randn(1, 1, 1, device=device, dtype=torch.float16),
         torch.randn(1, 1, 1, device=device, dtype=torch.float16)),
    ]


def flops(a, b):
    return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]


def bytes_moved(a, b):
    return (a.numel() + b.numel() + a.shape[0] * a.shape[1] * b.shape[2]) * a.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
