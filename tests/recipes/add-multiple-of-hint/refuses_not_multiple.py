"""add-multiple-of-hint refuses: rows of 1000 columns (1000 % 16 = 8). The proposals ask for
tl.multiple_of(n_cols, 8) and tl.multiple_of(row_stride, 8); both are true for this task, but a
hint on a kernel argument is dropped by Triton 3.6 and the JIT cannot specialize a value that is
not a multiple of 16, so the recipe declines instead of writing a hint that does nothing."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(out_ptr, in_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * row_stride
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(in_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(rows,)](out, x, x.stride(0), cols, BLOCK=256)
    return out


def reference(x):
    return x.sum(dim=-1)


def make_inputs(device):
    return (torch.randn(64, 1000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
