"""Reduction: column mean of a tall fp32 (65536, 1024) matrix, out[j] = mean_i x[i, j] (268 MB read).

E.g. the per-feature mean of 65,536 token activations of width 1024 (batch statistics).

Provenance: the direct 2-D tiled translation of x.mean(dim=0): one program per block of
64 columns walks down all the rows in (64 x 64) tiles, accumulating a (64, 64) fp32 tile
and reducing it over rows at the end, then divides by the row count.

Weaknesses: only cdiv(1024, 64) = 16 programs for 132 SMs: the reduction over the long
dimension (rows) is not split across programs (no split-M with a second pass or atomics),
so most of the GPU idles and each program streams 16 MB serially; fixed 64 x 64 tiles and
default num_warps=4, no autotuning; the row loop has no pipelining hints (num_stages);
every tile is masked on both dimensions although full tiles need no mask.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def column_mean_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += x
    col_sum = tl.sum(acc, axis=0)
    tl.store(out_ptr + cols, col_sum / n_rows, mask=col_mask)


def launch(x):
    assert x.dim() == 2
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(n_cols, 64),)
    column_mean_kernel[grid](x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_M=64, BLOCK_N=64)
    return out


def reference(x):
    return x.mean(dim=0)


def make_inputs(device):
    x = torch.randn(65536, 1024, device=device, dtype=torch.float32)  # 268 MB
    return (x,)


def make_small_inputs(device):
    x = torch.randn(301, 150, device=device, dtype=torch.float32)  # neither dimension a multiple of 64
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: two prime shapes of masked 64 x 64 tiles, and one row
    return [
        make_small_inputs(device),  # 301 x 150: neither dimension a multiple of 64
        (torch.randn(131, 97, device=device, dtype=torch.float32),),  # primes: 3 row tiles (the last holds 3 rows), 2 column programs (the second holds 33 columns)
        (torch.randn(1, 61, device=device, dtype=torch.float32),),  # one row (n_rows == 1, the mean is the row itself): 63 of 64 tile rows masked, one program
    ]


def bytes_moved(x):
    return x.numel() * x.element_size() + x.shape[1] * 4


TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}  # means of 65536 randn values are ~4e-3; fp32 order noise ~1e-8
