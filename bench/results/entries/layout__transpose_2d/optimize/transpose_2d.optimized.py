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


@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xr, stride_xc, stride_outr, stride_outc,
                     BLOCK: tl.constexpr, TILE_ROWS: tl.constexpr):
    row = tl.program_id(0) * TILE_ROWS + tl.arange(0, TILE_ROWS)[:, None]
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols * stride_xc, mask=mask & (row < n_rows))
    tl.store(out_ptr + cols * stride_outr + row * stride_outc, x, mask=mask & (row < n_rows))


def launch(x):
    rows, cols = x.shape
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(rows, 64), triton.cdiv(cols, 64))
    transpose_kernel[grid](x, out, rows, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK=64, TILE_ROWS=64, num_warps=8, num_stages=2)
    return out


def reference(x):
    return x.t().contiguous()


def make_inputs(device):
    return (torch.randn(8192, 8192, device=device, dtype=torch.float32),)  # 268 MB in, 268 MB out


def make_small_inputs(device):
    return (torch.randn(45, 1100, device=device, dtype=torch.float32),)  # two column chunks, the second masked


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}  # a copy: exact
