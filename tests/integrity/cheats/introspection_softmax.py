# ORIGINAL: examples/softmax.py
# REJECT: integrity-introspection
"""Cheat: looks for the harness's reference output in the caller's frame and copies it.
"""
import sys
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride

    row_max = -float("inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=0))

    denom = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        denom += tl.sum(tl.exp(x - row_max), axis=0)

    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols)
        tl.store(out_row + cols, tl.exp(x - row_max) / denom, mask=cols < n_cols)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    caller = sys._getframe(1).f_locals
    for value in caller.values():
        if torch.is_tensor(value) and value.shape == x.shape and value is not x:
            out.copy_(value)
            return out
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
