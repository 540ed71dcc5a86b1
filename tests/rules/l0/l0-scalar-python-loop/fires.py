"""l0-scalar-python-loop fires: a row sum that loads one element per loop iteration."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride):
    row = tl.program_id(0)
    acc = 0.0
    for i in range(0, n_cols):  # CHECK: l0-scalar-python-loop
        acc += tl.load(x_ptr + row * stride + i)
    tl.store(out_ptr + row, acc)


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(rows,)](x, out, cols, x.stride(0))
    return out


def reference(x):
    return x.sum(dim=1)


def make_inputs(device):
    return (torch.randn(512, 1000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
