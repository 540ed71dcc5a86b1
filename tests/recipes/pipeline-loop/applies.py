"""pipeline-loop applies: a row sum streaming each row with a plain `range` loop and no dot
(l2-unpipelined-loop); the recipe iterates with tl.range(..., num_stages=3), the only way a loop
without a dot gets pipelined."""
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
    return (torch.randn(64, 3000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
