"""fp32 matrix product C = A @ B (fp32 inputs and output), M = N = K = 4096, row-major.

Provenance: the Triton tutorial "Matrix Multiplication" (03-matrix-multiplication.py) in its
first, ungrouped form, applied to fp32 tensors as they come: one program per 64x64 output
tile, a K loop of BLOCK_K = 32, plain `tl.dot(a, b)` with no input_precision argument.
Triton's default input precision for an fp32 dot is tf32 (10-bit mantissa on the tensor
cores, fp32 accumulation), so the draft already runs on the tensor cores; the tolerance
below is the one tf32 needs, not the fp32 one.

Weaknesses: fp32 operands are twice the bytes of fp16 per MMA, and with fixed 64x64x32
tiles, 4 warps and the default 3 stages each program does little tensor-core work per byte
it moves (tf32 wgmma peaks at half the fp16 rate and needs deep pipelining to get there); no
autotuning; programs in row-major order with no grouping for L2 reuse of B; masks on every
load and the store though 4096 divides the tiles; no persistent scheduling, TMA or warp
specialization. tf32 wgmma takes its operands K-major only, and B here is row-major
(N contiguous): Triton transposes the B tile in registers, loads it 32 bits at a time and
does not pipeline that load.
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

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, b):
    return (a.double() @ b.double()).float()


# What a user would call in PyTorch (the reference upcasts for accuracy).
def torch_baseline(a, b):
    return a @ b


def make_inputs(device):
    a = torch.randn(4096, 4096, device=device, dtype=torch.float32)
    b = torch.randn(4096, 4096, device=device, dtype=torch.float32)
    return (a, b)


def make_small_inputs(device):
    a = torch.randn(67, 33, device=device, dtype=torch.float32)
    b = torch.randn(33, 45, device=device, dtype=torch.float32)
    return (a, b)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd M, N, K (prime) and a 1 x 1 x 1 product
    return [
        make_small_inputs(device),  # 67 x 33 @ 33 x 45: a 2 x 1 grid of 64x64 tiles, K = 33: one full step and 1
        # 97 x 61 @ 61 x 131: a 2 x 3 grid, N's third tile holds 3 columns, K's second step 29 of 32
        (torch.randn(97, 61, device=device, dtype=torch.float32),
         torch.randn(61, 131, device=device, dtype=torch.float32)),
        # M = N = K = 1: one program, one K step, everything but one element of each tile masked
        (torch.randn(1, 1, device=device, dtype=torch.float32),
         torch.randn(1, 1, device=device, dtype=torch.float32)),
    ]


def flops(a, b):
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


def bytes_moved(a, b):
    return (a.numel() + b.numel() + a.shape[0] * b.shape[1]) * a.element_size()


# tf32, not fp32: with randn inputs and K = 4096 the outputs have std sqrt(K) = 64, and
# rounding (or truncating) both operands to a 10-bit mantissa gives absolute errors of about
# 0.03-0.05 std, up to ~0.25 on the largest outputs (a bias proportional to |C|, covered by
# rtol). atol = 0.2 is 0.3% of the output std; bf16-class inputs (8-bit mantissa) fail it.
TOLERANCE = {"rtol": 1e-2, "atol": 2e-1}
