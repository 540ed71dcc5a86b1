"""Row softmax of a (rows, cols) fp32 matrix.

A first draft written like the textbook formula: three passes over each row in
global memory (max, then sum of exponentials, then normalize and store), one
program per row, a fixed chunk of 256 columns.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride

    # Step 1: Find the maximum value in each row.
    row_max = -float("inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=0))

    # Step 2: Accumulate sums of exponentials per row using atomic operations.
    exp_sum = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        exp_sum += tl.exp(x - row_max)

    # Step 3: Normalize and store the result.
    denom = exp_sum
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols)
        tl.store(out_row + cols, tl.exp(x - row_max) / denom, mask=cols < n_cols)


@triton.jit
def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=256)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    x = torch.randn(16384, 3000, device=device, dtype=torch.float32)  # 196 MB
    return (x,)


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


def flops(x):
    return 5 * x.numel()


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


def make_test_inputs(device):
    # Shapes every rewrite is also verified at, small enough for Triton's CPU interpreter: a row
    # shorter than a block, rows longer than one, and a single element.
    return [(torch.randn(37, 781, device=device, dtype=torch.float32),),
            (torch.randn(3, 4099, device=device, dtype=torch.float32),),
            (torch.randn(1, 1, device=device, dtype=torch.float32),)]
