"""Elementwise: out = leaky_relu(x, 0.2) * sqrt(2) on an fp32 (8192, 8191) matrix with odd rows (537 MB moved).

The scaled leaky ReLU of StyleGAN2's FusedLeakyReLU (negative slope 0.2, gain sqrt(2)),
on a 2-D input whose row length, 8191, is odd: each row starts at a different alignment.

Provenance: a stride-aware 2-D elementwise kernel as a first draft writes it: a 2-D grid
of (row, column block), the row and column strides passed as arguments so that views work,
columns in blocks of 1024.

Weaknesses: fixed BLOCK_SIZE=1024 and default num_warps=4, no autotuning; the row stride
8191 is not a multiple of 16, so Triton cannot prove any row start 16-byte aligned, and
the mask bound n_cols = 8191 is not a multiple of 16 either: every load and store is a
scalar 32-bit access; each row needs 8 column blocks of which the last is 1023/1024 full,
and the mask is checked on every access, full blocks included; a
contiguous input could be treated as one flat vector of M*N elements (aligned, vectorized),
which the draft does not special-case.
"""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def leaky_relu_scale_kernel(x_ptr, out_ptr, n_cols, stride_xm, stride_xn, stride_om, stride_on,
                            negative_slope, scale, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    col_block = tl.program_id(axis=1)
    cols = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask)
    y = tl.where(x >= 0, x, x * negative_slope) * scale
    tl.store(out_ptr + row * stride_om + cols * stride_on, y, mask=mask)


def launch(x, negative_slope=0.2, scale=math.sqrt(2.0)):
    assert x.dim() == 2
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    grid = (n_rows, triton.cdiv(n_cols, 1024))
    leaky_relu_scale_kernel[grid](x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                  negative_slope, scale, BLOCK_SIZE=1024)
    return out


def reference(x):
    return torch.nn.functional.leaky_relu(x, 0.2) * math.sqrt(2.0)


def make_inputs(device):
    x = torch.randn(8192, 8191, device=device, dtype=torch.float32)  # 268 MB in, 268 MB out
    return (x,)


def make_small_inputs(device):
    x = torch.randn(5, 1201, device=device, dtype=torch.float32)  # 6005 elements, odd rows: partial column blocks
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime row length, one element
    return [
        make_small_inputs(device),  # 5 x 1201: two column blocks per row, the second 177 full
        # 3 x 2053 (prime row length and stride): three column blocks per row, the last only 5 columns
        (torch.randn(3, 2053, device=device, dtype=torch.float32),),
        (torch.randn(1, 1, device=device, dtype=torch.float32),),  # one row of one element: a 1 x 1 grid, one lane
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
