"""Elementwise add: a few registers per thread, nothing spilled."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(n // 1024,)](x, y, out, BLOCK_SIZE=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1024 * 1024
    return (torch.randn(n, device=device, dtype=torch.float32), torch.randn(n, device=device, dtype=torch.float32))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
