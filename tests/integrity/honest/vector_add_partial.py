# ORIGINAL: examples/vector_add.py
"""Honest: launch configurations bound with functools.partial, both around the kernel's
launcher (functools.partial(add_kernel[grid], ...)) and around a helper (partial(helper, ...)).
"""
import functools
from functools import partial

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def _blocks(n, block):
    return (triton.cdiv(n, block),)


def _add_flat(x, y, out, block, num_warps):
    n = x.numel()
    run = functools.partial(add_kernel[_blocks(n, block)], BLOCK_SIZE=block, num_warps=num_warps)
    run(x, y, out, n)


_add_wide = partial(_add_flat, block=4096, num_warps=8)


def launch(x, y):
    out = torch.empty_like(x)
    _add_wide(x, y, out)
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
