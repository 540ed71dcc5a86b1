"""1x1 convolution (stride 1) as a GEMM in fp16 (fp32 accumulation): NHWC input
[256, 28, 28, 256], filter [256, 512] (C_in, C_out), NHWC output [256, 28, 28, 512]
(a ResNet-50 stage-2 sized 1x1 projection at training batch 256). GEMM view:
M = 256*28*28 = 200704 pixels, K = 256 input channels, N = 512 output channels.

Provenance: the standard observation that a 1x1 NHWC convolution is a plain matrix product
of the [N*H*W, C_in] pixel matrix (a free view of the contiguous input) with the
[C_in, C_out] filter, run through the Triton tutorial "Matrix Multiplication"
(03-matrix-multiplication.py) kernel in its first, ungrouped form: one program per 64x64
output tile, a K loop of BLOCK_K = 32, masked loads and store.

Weaknesses: a short reduction (K = 256: 8 steps of 32) and a tall, thin output, so each of
the 25088 programs of 64x64 spends a large share of its time in the prologue (filling the
3-stage pipeline) and the epilogue rather than in the MMA loop; fixed tiles, default 4
warps and 3 stages, no autotuning (with 64-wide tiles each input row is read by 8
programs, adjacent in launch order so mostly from L2; a larger BLOCK_N or a persistent
kernel would cut that and the per-program overhead); masks on every load and the store
though the shape divides the tiles; no TMA or warp specialization. Flops and minimum
traffic (103 MB in, 206 MB out) are balanced on an H200 (about 75 us each at peak), so the
draft has to overlap both to approach the roofline.
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
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def launch(x, w):
    N, H, W, C = x.shape
    K_out = w.shape[1]
    a = x.reshape(N * H * W, C)  # a view: NHWC is contiguous
    y = torch.empty((N, H, W, K_out), device=x.device, dtype=torch.float16)
    c = y.view(N * H * W, K_out)
    M = N * H * W
    grid = (triton.cdiv(M, 64) * triton.cdiv(K_out, 64),)
    matmul_kernel[grid](a, w, c, M, K_out, C,
                        a.stride(0), a.stride(1), w.stride(0), w.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return y


def reference(x, w):
    weight = w.t().float()[:, :, None, None]  # [C_out, C_in, 1, 1]
    y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2).float(), weight)
    return y.permute(0, 2, 3, 1).to(torch.float16)


def make_inputs(device):
    x = torch.randn(256, 28, 28, 256, device=device, dtype=torch.float16)
    w = torch.randn(256, 512, device=device, dtype=torch.float16)
    return (x, w)


def make_small_inputs(device):
    x = torch.randn(2, 5, 7, 33, device=device, dtype=torch.float16)
    w = torch.randn(33, 45, device=device, dtype=torch.float16)
    return (x, w)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, prime channels, one pixel of one channel
    return [
        make_small_inputs(device),  # M 70, C_in 33, C_out 45: two M tiles, K one full step and 1, one N tile
        # M = 3*5*7 = 105, C_in 131 (prime: four full K steps and 3), C_out 97 (two N tiles, the second 33 wide)
        (torch.randn(3, 5, 7, 131, device=device, dtype=torch.float16),
         torch.randn(131, 97, device=device, dtype=torch.float16)),
        # one pixel, one channel in and out: M = N = K = 1, one program, one element of each tile
        (torch.randn(1, 1, 1, 1, device=device, dtype=torch.float16),
         torch.randn(1, 1, device=device, dtype=torch.float16)),
    ]


def flops(x, w):
    N, H, W, C = x.shape
    return 2 * N * H * W * C * w.shape[1]


def bytes_moved(x, w):
    N, H, W, C = x.shape
    return (x.numel() + w.numel() + N * H * W * w.shape[1]) * x.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
