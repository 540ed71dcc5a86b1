# ORIGINAL: examples/softmax.py
"""Honest: a torch.nn.Module whose forward launches a one-pass kernel; launch() calls the
module (`op(x)`: nn.Module.__call__ runs forward).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp2(x * 1.4426950408889634)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


class RowSoftmax(torch.nn.Module):
    def __init__(self, num_warps=8):
        super().__init__()
        self.num_warps = num_warps

    def forward(self, x):
        rows, cols = x.shape
        out = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=block, num_warps=self.num_warps)
        return out


def launch(x):
    op = RowSoftmax()
    return op(x)


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
