"""bf16 matrix product C = A @ B (fp32 accumulation, bf16 output), M = N = K = 8192, row-major.

Provenance: the Triton tutorial "Matrix Multiplication" (03-matrix-multiplication.py) in the
form its text introduces first, with bf16 in place of fp16: one program per 64x64 output
tile, a K loop of BLOCK_K = 32 over two advancing pointer blocks, an fp32 accumulator,
masked loads and store, a 1-D grid in row-major order.

Weaknesses: fixed 64x64x32 tiles, small for an H200 at this size (16384 programs, each with
little MMA work per byte loaded from L2); no autotuning of tiles, warps or stages (defaults
num_warps=4, num_stages=3); row-major program order with no grouping (GROUP_M), so a wave of
programs touches one or two rows of A but a hundred-odd column panels of B and the 128 MB B
matrix is re-read from HBM for every tile row; masks kept on every load and the store
although 8192 divides the tiles; no persistent kernel, no TMA, no warp specialization.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
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

    c = acc.to(tl.bfloat16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, b):
    return (a.float() @ b.float()).to(torch.bfloat16)


# What a user would call in PyTorch (the reference upcasts for accuracy).
def torch_baseline(a, b):
    return a @ b


def make_inputs(device):
    a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    return (a, b)


def make_small_inputs(device):
    a = torch.randn(67, 33, device=device, dtype=torch.bfloat16)
    b = torch.randn(33, 45, device=device, dtype=torch.bfloat16)
    return (a, b)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd M, N, K (prime) and a 1 x 1 x 1 product
    return [
        make_small_inputs(device),  # 67 x 33 @ 33 x 45: a 2 x 1 grid of 64x64 tiles, K = 33: one full step and 1
        # 97 x 61 @ 61 x 131: a 2 x 3 grid, N's third tile holds 3 columns, K's second step 29 of 32
        (torch.randn(97, 61, device=device, dtype=torch.bfloat16),
         torch.randn(61, 131, device=device, dtype=torch.bfloat16)),
        # M = N = K = 1: one program, one K step, everything but one element of each tile masked
        (torch.randn(1, 1, device=device, dtype=torch.bfloat16),
         torch.randn(1, 1, device=device, dtype=torch.bfloat16)),
    ]


def flops(a, b):
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


def bytes_moved(a, b):
    return (a.numel() + b.numel() + a.shape[0] * b.shape[1]) * a.element_size()


# bf16 keeps 8 significant bits: one rounding of the output is up to 0.4% relative.
TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}
