"""Elementwise: out = x + y over a long fp32 vector.

A first draft: one program per 1024 elements, a bounds mask on every access.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, WARPSIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE, step=WARPSIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE), triton.cdiv(n, WARPSIZE))
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE, WARPSIZE=WARPSIZE)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 50_000_003  # 200 MB per tensor: several times the 60 MB L2 of an H200
    x = torch.randn(n, device=device, dtype=torch.float32)
    y = torch.randn(n, device=device, dtype=torch.float32)
    return (x, y)


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}


def make_test_inputs(device):
    # Sizes every rewrite is also verified at, small enough for Triton's CPU interpreter: one
    # element, a partial block, and a few blocks plus a remainder.
    return [tuple(torch.randn(n, device=device, dtype=torch.float32) for _ in range(2)) for n in (1, 1000, 100_003)]
