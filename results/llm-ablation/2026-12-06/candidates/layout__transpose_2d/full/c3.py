"""2-D transpose: out = x.T materialized (contiguous) for an (8192, 8192) fp32 matrix.

Provenance: the direct translation of out[j, i] = x[i, j] that a first draft writes: one program
per (row, 1024-column chunk) loads a contiguous piece of one row of x and stores it as a piece of
one column of out.

Weaknesses: the stores are fully strided: consecutive lanes write addresses 8192 * 4 bytes apart,
so each warp-wide store instruction touches 32 different 32-byte sectors for 128 useful bytes (1/8
sector efficiency on the store path; whether DRAM writes also grow depends on L2 merging the
partial sectors that neighbouring programs fill) and no vectorized stores are possible; there is no 2-D tile
staged through shared memory to make both the loads and the stores coalesced; a fixed BLOCK of
1024 and the default num_warps with no autotuning; row-major program order.
"""
import torch
import triton
import triton.language as tl
from triton import jit
from torch import randn


@jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xr, stride_xc, stride_outr, stride_outc,
                     BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols * stride_xc, mask=mask)
    # Changed the inner index to a plain arith.muli with a constant 1
    tl.store(out_ptr + cols * stride_outr + row * stride_outc, x, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    grid = (rows, triton.cdiv(cols, 1024))
    transpose_kernel[grid](x, out, rows, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK=1024)
    return out


def reference(x):
    return x.t().contiguous()


def make_inputs(device):
    return (torch.randn(8192, 8192, device=device, dtype=torch.float32),)  # 268 MB in, 268 MB out


def make_small_inputs(device):
    return (torch.randn(45, 1100, device=device, dtype=torch.float32),)  # two column chunks, the second masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd row counts, a short column tail, a single column
    return [
        make_small_inputs(device),  # 45 x 1100: two column chunks, the second with 76 columns
        # 13 x 1031 (primes): the second column chunk holds 7 columns, 13 rows (not a multiple of any tile)
        (torch.randn(13, 1031, device=device, dtype=torch.float32),),
        # one column: 131 one-element rows, the output a single row of 131
        (torch.randn(131, 1, device=device, dtype=torch.float32),),
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}  # a copy: exact
