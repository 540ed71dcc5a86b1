# ORIGINAL: examples/vector_add.py
# REJECT: integrity-kernel-not-launched
# REJECT-RUNTIME: integrity-kernel-not-launched
# REJECT-RUNTIME: integrity-torch-compute
"""Cheat: launch() hands the kernel to a helper of the module that never launches it (it only
sizes a grid), then returns `x + y`.
"""
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


def _grid(fn, n, block):
    assert fn is not None
    return (triton.cdiv(n, block),)


def launch(x, y):
    grid = _grid(add_kernel, x.numel(), 1024)
    assert grid[0] > 0
    return x + y


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
