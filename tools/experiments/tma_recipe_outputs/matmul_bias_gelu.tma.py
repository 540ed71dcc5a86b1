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
GROUP_SIZE_M = tl.constexpr(8)


@triton.jit
def matmul_bias_gelu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, num_tiles, USE_TMA: tl.constexpr):
    if USE_TMA:
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, stride_ak], block_shape=[BLOCK_M, BLOCK_K])
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, stride_bn], block_shape=[BLOCK_K, BLOCK_N])
    for pid in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0), flatten=USE_TMA):
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            if USE_TMA:
                a = a_desc.load([pid_m * BLOCK_M, k])
            else:
                a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
            if USE_TMA:
                b = b_desc.load([k, pid_n * BLOCK_N])
            else:
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
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    num_tiles = grid[0]
    launch_grid = (num_tiles,)
    block_k, stages = 64, 4
    use_tma = all(t.stride(-1) == 1 and t.data_ptr() % 16 == 0 and
                  all(s * t.element_size() % 16 == 0 for s in t.stride()[:-1]) for t in (x, w))
    if use_tma:  # TMA descriptors made on the device need Triton's allocator
        triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device=x.device, dtype=torch.int8))
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 1
        launch_grid = (min(num_tiles, sms),)
        # TMA's widest (128-byte) swizzle needs 128-byte rows in the K block; then as many stages as
        # fit in the shared memory a block may use, less the epilogue's
        block_k = max(block_k, 128 // x.element_size())
        stages = max(2, min(stages, 192512 // ((128 * x.element_size() + 128 * w.element_size()) * block_k)))
    matmul_bias_gelu_kernel[launch_grid](x, w, bias, y, M, N, K,
                                  x.stride(0), x.stride(1), w.stride(0), w.stride(1), y.stride(0), y.stride(1),
                                  BLOCK_M=128, BLOCK_N=128, BLOCK_K=block_k, num_warps=8, num_stages=stages, num_tiles=num_tiles, USE_TMA=use_tma)
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


def flops(x, w, bias):
    return 2 * x.shape[0] * x.shape[1] * w.shape[1]


def bytes_moved(x, w, bias):
    return (x.numel() + w.numel() + bias.numel() + x.shape[0] * w.shape[1]) * x.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
