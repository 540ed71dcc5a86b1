"""Reduction: per-row sum of an fp32 (16384, 8191) matrix, out[i] = sum_j x[i, j] (537 MB read).

Provenance: the textbook one-program-per-row reduction (the shape of the tutorials' fused
softmax, with a loop over column chunks because rows can be longer than one block): a
BLOCK_SIZE-wide fp32 accumulator, one tl.sum at the end.

Weaknesses: fixed BLOCK_SIZE=1024 and default num_warps=4, no autotuning; the row stride
8191 is not a multiple of 16 and neither is the mask bound, so Triton cannot prove row
starts aligned: every load is a scalar 32-bit access; the loop over 8 chunks per row is a
plain loop without pipelining hints (num_stages) and each chunk is masked, full ones
included; one program per row (16,384 short programs) with no tuning of rows per program.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    row_ptr = x_ptr + row * stride_row
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0)
        acc += x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def launch(x):
    assert x.dim() == 2 and x.stride(1) == 1
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_sum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK_SIZE=1024)
    return out


def reference(x):
    return x.sum(dim=1)


def make_inputs(device):
    x = torch.randn(16384, 8191, device=device, dtype=torch.float32)  # 537 MB
    return (x,)


def make_small_inputs(device):
    x = torch.randn(5, 1537, device=device, dtype=torch.float32)  # rows of 1.5 blocks: a partial chunk
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width with a tiny last chunk, and one element
    return [
        make_small_inputs(device),  # 5 x 1537: a full chunk then a partial one
        (torch.randn(7, 2053, device=device, dtype=torch.float32),),  # prime width (and row stride): 3 chunks, the last only 5 columns
        (torch.randn(1, 1, device=device, dtype=torch.float32),),  # one row of one element: one program, one masked chunk
    ]


def bytes_moved(x):
    return x.numel() * x.element_size() + x.shape[0] * 4


TOLERANCE = {"rtol": 1e-5, "atol": 5e-4}  # sums of 8191 randn values reach ~300; fp32 order noise ~5e-5
