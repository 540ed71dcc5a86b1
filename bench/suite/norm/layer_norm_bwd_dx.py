"""Layer norm backward, input gradient: dx from x, dy, weight, mean, rstd over rows of an (8192, 4096) fp32 matrix.

dx = rstd * (w*dy - mean_j(w*dy) - x_hat * mean_j(w*dy * x_hat)), with x_hat = (x - mean) * rstd.

Provenance: the `_layer_norm_bwd_dx_fused` kernel of the Triton "Layer Normalization" tutorial,
without its weight/bias-gradient part (the fused dW/dB accumulation with locks): one program
per row, the whole row in one register tile of BLOCK = next_power_of_2(n_cols) columns, the two
row reductions in fp32, then dx in the same program.

Weaknesses: the default num_warps (4) for a 4096-wide fp32 row (32 elements of each of x, dy and w
per thread: 96 registers for sm_90, 5 programs = 20 warps per SM, few bytes in flight; the tutorial picks warps
from the block size, this draft does not); no autotuning; one program per row (8192 programs, no
persistent loop); the weight row is re-read by every program (from L2); the block is sized from
the row length only, so rows longer than one register tile holds are not supported.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_bwd_dx_kernel(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, row_stride, n_cols,
                             BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * row_stride + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)

    x_hat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(x_hat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    dx = (wdy - (x_hat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * row_stride + cols, dx, mask=mask)


def launch(x, dy, weight, mean, rstd):
    rows, cols = x.shape
    assert dy.stride(0) == x.stride(0)
    dx = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    layer_norm_bwd_dx_kernel[(rows,)](dx, dy, x, weight, mean, rstd, x.stride(0), cols, BLOCK=BLOCK)
    return dx


def reference(x, dy, weight, mean, rstd):
    n = x.shape[1]
    x_hat = (x - mean[:, None]) * rstd[:, None]
    wdy = weight * dy
    c1 = (x_hat * wdy).sum(1, keepdim=True) / n
    c2 = wdy.sum(1, keepdim=True) / n
    return (wdy - (x_hat * c1 + c2)) * rstd[:, None]


EPS = 1e-5


def _inputs(device, rows, cols):
    x = torch.randn(rows, cols, device=device, dtype=torch.float32)
    dy = torch.randn(rows, cols, device=device, dtype=torch.float32)
    weight = 1.0 + 0.1 * torch.randn(cols, device=device, dtype=torch.float32)
    mean = x.mean(dim=1)                                    # what the forward saved
    rstd = torch.rsqrt(x.var(dim=1, unbiased=False) + EPS)
    return (x, dy, weight, mean, rstd)


def make_inputs(device):
    return _inputs(device, 8192, 4096)  # x, dy, dx: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 5, 1000)  # a 1024-wide tile, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width in a larger tile, one full-width row
    return [
        make_small_inputs(device),  # 5 x 1000: a 1024-wide tile, the last 24 columns masked
        _inputs(device, 7, 2053),  # a prime width (and row stride): a 4096-wide tile, 2043 columns masked
        _inputs(device, 1, 4096),  # one row at the realistic width: one program, the tile exactly full, no mask
    ]


def bytes_moved(x, dy, weight, mean, rstd):
    return (3 * x.numel() + weight.numel() + mean.numel() + rstd.numel()) * 4


TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
