"""single-pass-reduction applies: the sum-of-squares pass overwrites the loaded row (x = x * x); the
fused pass writes a fresh `x1` instead, so the normalize pass still reads the row."""
import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    sum_sq = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        x = x * x
        sum_sq += tl.sum(x, axis=0)
    rstd = 1.0 / tl.sqrt(sum_sq / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        tl.store(y_ptr + row * stride + cols, x * rstd, mask=cols < n_cols)


def launch(x):
    y = torch.empty_like(x)
    rms_norm_kernel[(x.shape[0],)](x, y, x.stride(0), x.shape[1], 1e-6, BLOCK=256)
    return y


def reference(x):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)


def make_inputs(device):
    return (torch.randn(128, 1000, device=device),)


def make_small_inputs(device):
    return (torch.randn(6, 300, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
