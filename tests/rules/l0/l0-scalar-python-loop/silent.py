"""l0-scalar-python-loop stays silent: the row sum loops over 1024-lane blocks."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024)
    return out


def reference(x):
    return x.sum(dim=1)


def make_inputs(device):
    return (torch.randn(512, 3000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
