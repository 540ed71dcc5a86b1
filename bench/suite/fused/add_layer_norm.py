"""Residual add fused with LayerNorm, fp16 [8192, 4096] (8192 tokens, hidden size 4096): s = x + residual, y = LN(s) * w + b.

Returns (y, s): the normalized output and the updated residual stream, both fp16, as a
pre-norm transformer block needs them. The sum is formed in fp32; the statistics and the
normalization use that fp32 sum (s is rounded to fp16 only when stored); eps = 1e-5.

Provenance: the forward kernel of the Triton layer-norm tutorial (05-layer-norm.py: one program
per row, a loop over BLOCK_SIZE chunks for the mean, a second for the variance, a third to
normalize; BLOCK_SIZE = min(64 KB / element size, next power of two of N), num_warps =
min(max(BLOCK_SIZE // 256, 1), 8)), with the residual add folded into each pass.

Weaknesses: three passes over the row, each reloading x and residual from global memory (L1/L2
hits for a 16 KB row pair, but three times the load instructions and latency) and recomputing the
sum, where one pass holding the row in registers would do; two-pass mean/variance; the tutorial's
fixed heuristic for BLOCK_SIZE and num_warps, no autotuning; one row per program (8192 programs);
weight and bias reloaded by every row program; the mean and rstd are not saved (a forward-only
kernel), so a backward would have to recompute them.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_layer_norm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, s_ptr, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    r_ptr += row * stride
    y_ptr += row * stride
    s_ptr += row * stride
    # mean
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.).to(tl.float32)
        r = tl.load(r_ptr + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += x + r
    mean = tl.sum(_mean, axis=0) / N
    # variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.).to(tl.float32)
        r = tl.load(r_ptr + cols, mask=cols < N, other=0.).to(tl.float32)
        d = tl.where(cols < N, x + r - mean, 0.)
        _var += d * d
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    # normalize, store the sum and the output
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        x = tl.load(x_ptr + cols, mask=mask, other=0.).to(tl.float32)
        r = tl.load(r_ptr + cols, mask=mask, other=0.).to(tl.float32)
        s = x + r
        y = (s - mean) * rstd * w + b
        tl.store(s_ptr + cols, s.to(s_ptr.dtype.element_ty), mask=mask)
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


EPS = 1e-5


def launch(x, residual, weight, bias):
    M, N = x.shape
    y = torch.empty_like(x)
    s = torch.empty_like(x)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    add_layer_norm_kernel[(M,)](x, residual, weight, bias, y, s, x.stride(0), N, EPS,
                                BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y, s


def reference(x, residual, weight, bias):
    s = x.float() + residual.float()
    y = torch.nn.functional.layer_norm(s, (x.shape[1],), weight.float(), bias.float(), EPS)
    return y.to(x.dtype), s.to(x.dtype)


def make_inputs(device):
    M, N = 8192, 4096  # x, residual in; y, s out: 4 x 67 MB
    x = torch.randn(M, N, device=device, dtype=torch.float16)
    residual = torch.randn(M, N, device=device, dtype=torch.float16)
    weight = 1.0 + 0.1 * torch.randn(N, device=device, dtype=torch.float16)
    bias = 0.1 * torch.randn(N, device=device, dtype=torch.float16)
    return (x, residual, weight, bias)


def make_small_inputs(device):
    M, N = 5, 1000  # 1000 is not a power of two: exercises the masks
    x = torch.randn(M, N, device=device, dtype=torch.float16)
    residual = torch.randn(M, N, device=device, dtype=torch.float16)
    weight = 1.0 + 0.1 * torch.randn(N, device=device, dtype=torch.float16)
    bias = 0.1 * torch.randn(N, device=device, dtype=torch.float16)
    return (x, residual, weight, bias)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime width, one token at the real width
    def _inputs(M, N):  # built as make_small_inputs builds them
        x = torch.randn(M, N, device=device, dtype=torch.float16)
        residual = torch.randn(M, N, device=device, dtype=torch.float16)
        weight = 1.0 + 0.1 * torch.randn(N, device=device, dtype=torch.float16)
        bias = 0.1 * torch.randn(N, device=device, dtype=torch.float16)
        return (x, residual, weight, bias)
    return [
        make_small_inputs(device),  # 5 x 1000: a 1024-wide block, the last 24 columns masked
        _inputs(7, 2053),  # prime width: a 4096-wide block (8 warps), 2043 columns masked out of the mean and variance
        _inputs(1, 4096),  # one token (a decode step) at the real hidden size: one program, the block exactly full
    ]


def bytes_moved(x, residual, weight, bias):
    return 4 * x.numel() * x.element_size() + (weight.numel() + bias.numel()) * weight.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
