"""RMSNorm forward (LightLLM `rmsnorm_forward`, the Llama layers' norm) over a (16384, 4096) bf16 activation: a 16k-token prefill batch at Llama-7B's hidden size.

Provenance: ModelTC/lightllm@fc72ffab9a3455cfb571f22d45ab777cc29de0de:lightllm/models/llama/triton_kernel/rmsnorm.py
(Apache-2.0; the file carries no copyright line, and the repository's LICENSE is the Apache License
2.0 text with its notice left unfilled). Copied verbatim: the kernel `_rms_norm_fwd_fused` (one
program per row, two passes over the row in BLOCK_SIZE chunks) and the wrapper `rmsnorm_forward`
(BLOCK_SIZE = min(64 KB / element size, next_power_of_2(N)), capped at 16384; num_warps from
BLOCK_SIZE / 256, capped at 4). Left out: the file's `torch_rms_norm` and `test_rms_norm`. Nothing
in the kernel or the wrapper changed.

The launch: N = 4096 gives BLOCK_SIZE 4096 (each loop runs once) and 4 warps, 16384 programs.
"""
import torch

import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# lightllm/models/llama/triton_kernel/rmsnorm.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.jit
def _rms_norm_fwd_fused(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    x_stride0,  # how much to increase the pointer when moving by 1 row
    x_stride1,
    y_stride0,
    y_stride1,
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    BLOCK_SIZE: tl.constexpr,
):
    # Map the program id to the row of X and Y it should compute.
    row = tl.program_id(0)
    Y += row * y_stride0
    X += row * x_stride0
    # Compute variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols * x_stride1, mask=cols < N, other=0.0).to(tl.float32)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    # Normalize and apply linear transformation
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = x * rstd
        y = x_hat * w
        # Write output
        tl.store(Y + cols * y_stride1, y.to(Y.dtype.element_ty), mask=mask)


def rmsnorm_forward(x: torch.Tensor, weight, eps, out=None):
    # allocate output
    y = torch.empty_like(x) if out is None else out
    # reshape input data into 2D tensor
    x_arg = x.view(-1, x.shape[-1])
    y_arg = y.view(-1, x.shape[-1])
    assert y.data_ptr() == y_arg.data_ptr()
    M, N = x_arg.shape
    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    # print("BLOCK_SIZE:", BLOCK_SIZE)
    if N > BLOCK_SIZE:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    # heuristics for number of warps
    num_warps = min(max(BLOCK_SIZE // 256, 1), 4)
    num_warps = triton.next_power_of_2(num_warps)
    if BLOCK_SIZE > 16384:
        BLOCK_SIZE = 16384
    # enqueue kernel
    _rms_norm_fwd_fused[(M,)](
        x_arg,
        y_arg,
        weight,
        x_arg.stride(0),
        x_arg.stride(1),
        y_arg.stride(0),
        y_arg.stride(1),
        N,
        eps,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return y


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================

EPS = 1e-6


def launch(x, weight):
    return rmsnorm_forward(x, weight, EPS)


def reference(x, weight):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * weight.float()).to(x.dtype)


def _inputs(device, rows, cols):
    x = torch.randn(rows, cols, device=device, dtype=torch.bfloat16)
    weight = (1.0 + 0.1 * torch.randn(cols, device=device)).to(torch.bfloat16)
    return (x, weight)


def make_inputs(device):
    return _inputs(device, 16384, 4096)  # x and y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 6, 1000)  # a 1024-wide block, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            _inputs(device, 1, 16411),  # N > 16384: BLOCK_SIZE capped at 16384, two chunks, the second 27 columns
            _inputs(device, 1, 1)]  # one token of one feature: BLOCK_SIZE = 1, one warp


def bytes_moved(x, weight):
    return 2 * x.numel() * x.element_size() + weight.numel() * weight.element_size()


def flops(x, weight):
    return 4 * x.numel()  # square, sum, scale, weight


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}
